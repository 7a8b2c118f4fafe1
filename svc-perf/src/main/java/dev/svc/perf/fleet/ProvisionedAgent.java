package dev.svc.perf.fleet;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.core.protocol.HeartbeatAnswer;
import io.vertx.core.json.JsonObject;

/**
 * The server's answer to provisioning an agent ({@code POST /api/v1/agents}, 201): the id it knows
 * the agent by and the token it issued to it. Both go on the wire again (the id into request paths,
 * the token into a header), so both are checked here.
 */
record ProvisionedAgent(String agentId, String token) {

  /** Longest token taken; the server issues 64 hex digits. */
  static final int MAX_TOKEN = 512;

  static ProvisionedAgent parse(JsonObject body) {
    String id = Fields.requireString(body, "agent_id");
    if (!HeartbeatAnswer.AGENT_ID.matcher(id).matches()) {
      throw new BadMessage("Field 'agent_id' must be 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'");
    }
    return new ProvisionedAgent(id, Fields.line("token", Fields.requireString(body, "token"), MAX_TOKEN));
  }
}
