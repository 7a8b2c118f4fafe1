package dev.svc.server.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/** The wire text of an event stream: event frames and comment lines (protocol.md section 7). */
final class SseFrame {

  static final Buffer CONNECTED = comment("connected");
  static final Buffer KEEPALIVE = comment("keepalive");

  private SseFrame() {
  }

  /** {@code id: <n>\nevent: <type>\ndata: <json>\n\n}; the JSON encoder escapes newlines, so data is one line. */
  static Buffer event(JsonObject event) {
    JsonObject data = event.getJsonObject("data", new JsonObject());
    return Buffer.buffer("id: " + event.getLong("id") + "\nevent: " + event.getString("type")
        + "\ndata: " + data.encode() + "\n\n");
  }

  static Buffer comment(String text) {
    return Buffer.buffer(": " + text + "\n\n");
  }
}
