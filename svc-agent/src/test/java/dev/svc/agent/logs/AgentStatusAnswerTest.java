package dev.svc.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The local agent's status answer: written and read back the same, refused whole when malformed. */
class AgentStatusAnswerTest {

  @Test
  void theAnswerRoundTripsInTheShapeTheAgentWrites() {
    AgentStatusAnswer sent = new AgentStatusAnswer("gpu-node-1", true, "0123456789abcdef",
        new AgentStatusAnswer.Storage(812.25, 40.5, 3), "https://svc-2.lab:8080");
    JsonObject wire = sent.toJson();
    assertThat(wire).isEqualTo(new JsonObject("{\"name\":\"gpu-node-1\",\"running\":true,\"benchmark_active\":true,"
        + "\"current_test\":\"0123456789abcdef\","
        + "\"storage\":{\"free_gb\":812.25,\"used_gb\":40.5,\"model_count\":3},\"server\":\"https://svc-2.lab:8080\"}"));
    assertThat(AgentStatusAnswer.parse(new JsonObject(wire.encode()))).isEqualTo(sent);

    AgentStatusAnswer unknown = new AgentStatusAnswer(null, false, "", AgentStatusAnswer.Storage.UNKNOWN, null);
    assertThat(unknown.toJson().getValue("storage")).as("figures it could not read are left out")
        .isEqualTo(new JsonObject());
    assertThat(AgentStatusAnswer.parse(new JsonObject(unknown.toJson().encode()))).isEqualTo(unknown);
  }

  @Test
  void anOlderAnswerLeavesFieldsOut() {
    AgentStatusAnswer sparse = AgentStatusAnswer.parse(new JsonObject().put("running", true));
    assertThat(sparse).isEqualTo(new AgentStatusAnswer(null, false, "", null, null));
    assertThat(AgentStatusAnswer.parse(new JsonObject().put("storage", new JsonObject().put("free_gb", 7)))
        .storage().freeGb()).isEqualTo(7.0);
  }

  @Test
  void aMalformedAnswerIsRefusedWithOneSentence() {
    assertThatThrownBy(() -> AgentStatusAnswer.parse(new JsonObject().put("benchmark_active", "yes")))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'benchmark_active' must be true or false");
    assertThatThrownBy(() -> AgentStatusAnswer.parse(new JsonObject().put("name", 7)))
        .hasMessage("Field 'name' must be a string");
    assertThatThrownBy(() -> AgentStatusAnswer.parse(new JsonObject().put("name", "a\u001b[2Jb")))
        .hasMessageStartingWith("Field 'name' must not contain control");
    assertThatThrownBy(() -> AgentStatusAnswer.parse(new JsonObject().put("current_test", "x".repeat(129))))
        .hasMessage("Field 'current_test' must be at most 128 characters");
    assertThatThrownBy(() -> AgentStatusAnswer.parse(new JsonObject().put("storage", "full")))
        .hasMessage("Field 'storage' must be an object");
    assertThatThrownBy(() -> AgentStatusAnswer.parse(new JsonObject().put("storage",
        new JsonObject().put("used_gb", -1)))).hasMessage("Field 'used_gb' must be between 0 and 1000000000");
    assertThatThrownBy(() -> AgentStatusAnswer.parse(new JsonObject().put("storage",
        new JsonObject().put("model_count", 1.5)))).hasMessage("Field 'model_count' must be an integer");
  }
}
