package dev.svc.server.http;

import dev.svc.core.events.LoggedEvent;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/** The wire text of an event stream: event frames and comment lines (protocol.md section 7). */
final class SseFrame {

  static final Buffer CONNECTED = comment("connected");
  static final Buffer KEEPALIVE = comment("keepalive");

  private SseFrame() {
  }

  /** {@code id: <n>\nevent: <type>\ndata: <json>\n\n}; the JSON encoder escapes newlines, so data is one line. */
  static Buffer event(LoggedEvent event) {
    return Buffer.buffer("id: " + event.id() + "\nevent: " + event.type() + "\ndata: " + event.data().encode() + "\n\n");
  }

  /**
   * {@code event: reset}, without an id: the client's Last-Event-ID ({@code asked}) is newer than any
   * stored event, so it came from another database or the log was reset; the stream then replays
   * from the start ({@code from_start}) or goes live ({@code live}). A page should reload.
   */
  static Buffer reset(long asked, long newest, String then) {
    JsonObject data = new JsonObject().put("last_event_id", asked).put("newest_event_id", newest).put("then", then);
    return Buffer.buffer("event: reset\ndata: " + data.encode() + "\n\n");
  }

  static Buffer comment(String text) {
    return Buffer.buffer(": " + text + "\n\n");
  }
}
