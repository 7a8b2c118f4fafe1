package dev.svc.core.events;

import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;

/**
 * {@code {"source_id","type","data"}}, a request to {@link EventAddresses#PUBLISH} from another
 * Vert.x program: store this event with the next id and publish it.
 *
 * @param data empty when not given
 */
public record PublishRequest(String sourceId, String type, JsonObject data) {

  public static PublishRequest parse(JsonObject json) {
    JsonObject data = Fields.optObject(json, "data");
    return new PublishRequest(Fields.line("source_id", Fields.requireString(json, "source_id"), 255),
        Fields.line("type", Fields.requireString(json, "type"), 64), data == null ? new JsonObject() : data);
  }

  public JsonObject toJson() {
    return new JsonObject().put("source_id", sourceId).put("type", type).put("data", data);
  }
}
