package dev.svc.server.dispatch;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.core.protocol.Heartbeat;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The message on {@code svc.agents.heartbeat}: an agent's parsed heartbeat, for the dispatcher.
 * On the bus it is JSON ({@link #toJson}, the shape docs/events.md gives), so that any node of a
 * clustered bus and the TCP bridge carry it as they carry every other message; each end holds the
 * record.
 */
public record HeartbeatRequest(String agentId, Heartbeat heartbeat) {

  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("agent_id", agentId).put("metrics", heartbeat.metrics());
    List<String> acks = heartbeat.ackedCommandIds();
    if (acks != null) {
      json.put("acked_command_ids", new JsonArray(List.copyOf(acks)));
    }
    return json;
  }

  /** The message back; a body without an agent id or metrics is refused with {@link BadMessage}. */
  public static HeartbeatRequest parse(JsonObject body) {
    String agentId = Fields.requireString(body, "agent_id");
    if (!(body.getValue("metrics") instanceof JsonObject metrics)) {
      throw new BadMessage("Field 'metrics' must be an object");
    }
    JsonObject beat = metrics.copy();
    if (body.getValue("acked_command_ids") != null) {
      beat.put("acked_command_ids", body.getValue("acked_command_ids"));
    }
    return new HeartbeatRequest(agentId, Heartbeat.parse(beat));
  }
}
