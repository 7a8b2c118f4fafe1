package dev.svc.core.events;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;

/**
 * An event of the numbered event log as it is published on the bus ({@link EventAddresses#ALL} and
 * the per-source addresses), streamed over SSE and replayed:
 * {@code {"id","source_id","type","data","created_at"}} (docs/events.md).
 *
 * @param data the event's data, never null; shared, not copied: do not change it
 */
public record LoggedEvent(long id, String sourceId, String type, JsonObject data, String createdAt) {

  public LoggedEvent {
    data = data == null ? new JsonObject() : data;
  }

  public static LoggedEvent parse(JsonObject json) {
    Long id = Fields.optLong(json, "id", null, 1, Long.MAX_VALUE);
    if (id == null) {
      throw new BadMessage("Field 'id' is required");
    }
    return new LoggedEvent(id, Fields.requireString(json, "source_id"), Fields.requireString(json, "type"),
        Fields.optObject(json, "data"), Fields.optString(json, "created_at", null));
  }

  public JsonObject toJson() {
    return new JsonObject().put("id", id).put("source_id", sourceId).put("type", type).put("data", data)
        .put("created_at", createdAt);
  }

  /** The same event with its own copy of the data, for a receiver that may change it. */
  public LoggedEvent copy() {
    return new LoggedEvent(id, sourceId, type, data.copy(), createdAt);
  }

  /** The line of a log event; null for another event, or when its data has no text line. */
  public String line() {
    return EventType.LOG.equals(type) ? text("line") : null;
  }

  /** The status a status event reports; null for another event, or when its data has no text status. */
  public String status() {
    return EventType.STATUS.equals(type) ? text("status") : null;
  }

  /** The error a status event gives (a failed test's reason); null when it gives none. */
  public String error() {
    return EventType.STATUS.equals(type) ? text("error") : null;
  }

  /** One of the data's fields as text: events come from other programs too, so a field of another kind is no text. */
  private String text(String field) {
    return data.getValue(field) instanceof String s ? s : null;
  }
}
