package dev.svc.server.store;

import dev.svc.server.json.BoundedJson;
import io.vertx.core.json.JsonObject;

/**
 * Reads JSON-object columns (metrics.json data, configs, hardware details) as the pages and the API
 * show them. Decoding is bounded ({@link BoundedJson}): a row stored before the limit existed, nested
 * deeper, reads as unreadable instead of overflowing the stack of whoever reads it.
 */
public final class StoredJson {

  private StoredJson() {
  }

  /** The stored JSON object, or null when the column is empty, not a JSON object or nested too deep. */
  public static JsonObject object(String text) {
    return BoundedJson.objectOrNull(text);
  }
}
