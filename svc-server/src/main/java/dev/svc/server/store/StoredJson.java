package dev.svc.server.store;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

/** Reads JSON-object columns (metrics.json data, configs, hardware details) as the pages and the API show them. */
public final class StoredJson {

  private StoredJson() {
  }

  /** The stored JSON object, or null when the column is empty or not a JSON object. */
  public static JsonObject object(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
  }
}
