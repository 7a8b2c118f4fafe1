package dev.svc.server.models;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;

/**
 * A model the catalog lists: its id, its path, its formats (as the manifest names them, or as
 * detected from the path), its size when known and where it was listed ({@code local} or
 * {@code catalog}).
 */
public record CatalogModel(String modelId, String path, List<String> formats, Long sizeBytes, String source) {

  /** Whether its id or path contains {@code query} (case-insensitive); a blank query matches all. */
  public boolean matches(String query) {
    if (query == null || query.isBlank()) {
      return true;
    }
    String haystack = modelId + " " + path;
    return haystack.toLowerCase(Locale.ROOT).contains(query.trim().toLowerCase(Locale.ROOT));
  }

  /** An item of {@code GET /api/v1/models}. */
  public JsonObject toJson() {
    return new JsonObject().put("model_id", modelId).put("path", path).put("formats", new JsonArray(formats))
        .put("size_bytes", sizeBytes).put("source", source);
  }
}
