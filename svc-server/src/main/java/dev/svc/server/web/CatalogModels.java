package dev.svc.server.web;

import dev.svc.server.models.CatalogModel;
import dev.svc.server.models.ModelCatalog;
import dev.svc.server.settings.GlobalSettings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The models the model pickers offer: the catalog manifests GET /api/v1/models lists (the model
 * directory's manifest.json and the catalog service's), read through the same ModelCatalog.
 */
final class CatalogModels {

  private final ModelCatalog catalog;
  private final GlobalSettings settings;

  CatalogModels(Vertx vertx, GlobalSettings settings) {
    this.catalog = new ModelCatalog(vertx);
    this.settings = settings;
  }

  Future<ModelCatalog.Listing> load() {
    return settings.effective().compose(s -> catalog.list(s.get(GlobalSettings.MODEL_DIR).value(),
        s.get(GlobalSettings.CATALOG_URL).value()));
  }

  /** Template maps: {@code id, path, formats (list), formats_attr ("gguf safetensors"), size, source}. */
  static List<Map<String, Object>> rows(ModelCatalog.Listing listing) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (CatalogModel m : listing.models()) {
      List<String> formats = m.formats().stream().map(f -> f.toLowerCase(Locale.ROOT)).toList();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", m.modelId());
      row.put("path", m.path());
      row.put("formats", formats);
      row.put("formats_attr", String.join(" ", formats));
      row.put("size", size(m.sizeBytes()));
      row.put("source", m.source());
      out.add(row);
    }
    return out;
  }

  static String size(Long bytes) {
    if (bytes == null || bytes < 0) {
      return "";
    }
    String[] units = {"B", "KB", "MB", "GB", "TB"};
    double value = bytes;
    int unit = 0;
    while (value >= 1000 && unit < units.length - 1) {
      value /= 1000;
      unit++;
    }
    return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }
}
