package dev.svc.server.web;

import dev.svc.server.settings.GlobalSettings;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GET /settings: the global settings, each with its effective value and where it came from; the
 * page's script saves and clears them through PUT /api/v1/settings.
 */
final class SettingsPage {

  private final GlobalSettings settings;
  private final PageRenderer renderer;

  SettingsPage(GlobalSettings settings, PageRenderer renderer) {
    this.settings = settings;
    this.renderer = renderer;
  }

  void handle(RoutingContext ctx) {
    settings.toJson().onSuccess(json -> {
      List<Map<String, Object>> rows = new ArrayList<>();
      rows.add(row(json, GlobalSettings.MODEL_DIR, "Model directory", "text",
          "Directory whose manifest.json lists the models (absolute path).", "/srv/models"));
      rows.add(row(json, GlobalSettings.CATALOG_URL, "Catalog service URL", "url",
          "http:// or https:// address of the catalog service; its manifest.json is merged into the model list.",
          "https://catalog.example:8000"));
      rows.add(row(json, GlobalSettings.RESULTS_DIR, "Results directory", "text",
          "Directory scanned for metrics.json files (absolute path); re-scanned when changed.", "/srv/results"));
      renderer.render(ctx, 200, "settings", "settings", Map.of("settings", rows));
    }).onFailure(ctx::fail);
  }

  private static Map<String, Object> row(JsonObject all, String key, String label, String type, String hint,
      String placeholder) {
    JsonObject setting = all.getJsonObject(key, new JsonObject());
    String value = setting.getString("value");
    String source = setting.getString("source", "unset");
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("key", key);
    out.put("label", label);
    out.put("type", type);
    out.put("hint", hint);
    out.put("placeholder", placeholder);
    out.put("fallback", setting.getString("fallback", ""));
    out.put("effective", value == null ? "" : value);
    out.put("source", source);
    // the input holds only what the database overrides; empty means "use the environment or the default"
    out.put("saved", "database".equals(source) && value != null ? value : "");
    return out;
  }
}
