package dev.svc.perf.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The simulator's reads of the server's answers take what the server writes and refuse the rest with a sentence. */
class FleetAnswersTest {

  @Test
  void aCreatedResourceGivesItsId() {
    assertThat(CreatedResource.parse(new JsonObject().put("id", "0123456789abcdef").put("command_id", "c1")).id())
        .isEqualTo("0123456789abcdef");
    assertThatThrownBy(() -> CreatedResource.parse(new JsonObject())).isInstanceOf(BadMessage.class)
        .hasMessage("Field 'id' is required");
    assertThatThrownBy(() -> CreatedResource.parse(new JsonObject().put("id", 42)))
        .hasMessage("Field 'id' must be a string");
    assertThatThrownBy(() -> CreatedResource.parse(new JsonObject().put("id", "../agents")))
        .hasMessage("Field 'id' must be 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'");
    assertThatThrownBy(() -> CreatedResource.parse(new JsonObject().put("id", "a".repeat(65))))
        .hasMessage("Field 'id' must be 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'");
  }

  @Test
  void aProvisionedAgentGivesItsIdAndToken() {
    // as AgentAdminRoutes answers a provisioning
    JsonObject answer = new JsonObject().put("agent_id", "0123456789abcdef").put("name", "sim-0")
        .put("token", "ab".repeat(32)).put("token_prefix", "abababab");
    assertThat(ProvisionedAgent.parse(answer)).isEqualTo(new ProvisionedAgent("0123456789abcdef", "ab".repeat(32)));
    assertThatThrownBy(() -> ProvisionedAgent.parse(answer.copy().put("agent_id", "a/b")))
        .isInstanceOf(BadMessage.class)
        .hasMessage("Field 'agent_id' must be 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'");
    assertThatThrownBy(() -> ProvisionedAgent.parse(answer.copy().put("agent_id", true)))
        .hasMessage("Field 'agent_id' must be a string");
    assertThatThrownBy(() -> ProvisionedAgent.parse(answer.copy().putNull("token")))
        .hasMessage("Field 'token' is required");
    assertThatThrownBy(() -> ProvisionedAgent.parse(answer.copy().put("token", "abc\r\nX-Forged: 1")))
        .hasMessageStartingWith("Field 'token' must not contain control");
    assertThatThrownBy(() -> ProvisionedAgent.parse(answer.copy().put("token", "a".repeat(513))))
        .hasMessage("Field 'token' must be at most 512 characters");
  }
}
