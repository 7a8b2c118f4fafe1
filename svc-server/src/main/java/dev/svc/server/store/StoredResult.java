package dev.svc.server.store;

import io.vertx.core.json.JsonObject;

/**
 * A stored result: its list columns, its {@code summary} and, read by id alone, its whole document
 * ({@code data}, null in list rows: one document can be many megabytes).
 */
public record StoredResult(String id, String model, String engine, String suiteName, String timestamp,
    boolean passed, String summary, String sourcePath, String testId, String agentId, String commandId,
    String createdAt, String data) {

  /** The whole metrics.json, or null when the row has none or it is unreadable. */
  public JsonObject dataObject() {
    return StoredJson.object(data);
  }

  /** The stored summary, or null when the row has none or it is unreadable. */
  public JsonObject summaryObject() {
    return StoredJson.object(summary);
  }
}
