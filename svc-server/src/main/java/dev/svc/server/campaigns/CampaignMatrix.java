package dev.svc.server.campaigns;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Expands a campaign's config into its rows: models × engines × benchmarks, in that nested order.
 * An engine's own {@code suite} overrides the campaign's {@code suite_name}.
 */
final class CampaignMatrix {

  static final String DEFAULT_SUITE = "quick";
  static final String DEFAULT_BENCHMARK = "throughput";

  private CampaignMatrix() {
  }

  static List<CampaignRow> rows(JsonObject config) {
    JsonArray models = array(config, "models");
    JsonArray engines = array(config, "engines");
    JsonArray benchmarks = config.getJsonArray("benchmarks");
    if (benchmarks == null || benchmarks.isEmpty()) {
      benchmarks = new JsonArray().add(DEFAULT_BENCHMARK);
    }
    String suite = config.getString("suite_name", DEFAULT_SUITE);
    boolean force = Boolean.TRUE.equals(config.getValue("force"));
    List<CampaignRow> rows = new ArrayList<>();
    for (Object m : models) {
      JsonObject model = m instanceof JsonObject ? (JsonObject) m : new JsonObject().put("path", String.valueOf(m));
      String path = model.getString("path");
      String name = model.getString("name", path);
      for (Object e : engines) {
        JsonObject engine = e instanceof JsonObject ? (JsonObject) e : new JsonObject().put("name", String.valueOf(e));
        String engineSuite = engine.getString("suite", suite);
        for (Object b : benchmarks) {
          rows.add(new CampaignRow(rows.size(), name, path, engine.getString("name"), String.valueOf(b), engineSuite,
              force));
        }
      }
    }
    return rows;
  }

  private static JsonArray array(JsonObject config, String key) {
    JsonArray value = config.getJsonArray(key);
    return value == null ? new JsonArray() : value;
  }
}
