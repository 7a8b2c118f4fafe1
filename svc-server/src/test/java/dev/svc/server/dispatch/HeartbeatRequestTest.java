package dev.svc.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.domain.AgentStatus;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Heartbeat;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The heartbeat's message on the bus: the documented JSON shape, parsed back to the same record. */
class HeartbeatRequestTest {

  @Test
  void itCarriesTheDocumentedShapeAndParsesBackToTheSameMessage() {
    Heartbeat beat = new Heartbeat(AgentStatus.RUNNING, "t1", 87.5, 40.0, null, 3600.0, List.of("c1", "c2"));
    JsonObject json = new HeartbeatRequest("a1", beat).toJson();
    assertThat(json.fieldNames()).containsExactlyInAnyOrder("agent_id", "metrics", "acked_command_ids");
    assertThat(json.getJsonObject("metrics").fieldNames()).containsExactlyInAnyOrder("status", "current_task",
        "gpu_utilization_pct", "gpu_memory_used_gb", "storage_gb_free", "uptime_s");
    assertThat(HeartbeatRequest.parse(json)).isEqualTo(new HeartbeatRequest("a1", beat));

    Heartbeat old = new Heartbeat(AgentStatus.IDLE, "", null, null, null, null, null);
    JsonObject withoutAcks = new HeartbeatRequest("a2", old).toJson();
    assertThat(withoutAcks.containsKey("acked_command_ids")).as("an old agent acknowledges nothing").isFalse();
    assertThat(HeartbeatRequest.parse(withoutAcks).heartbeat()).isEqualTo(old);
  }

  @Test
  void aBodyWithoutAgentOrMetricsIsRefused() {
    assertThatThrownBy(() -> HeartbeatRequest.parse(new JsonObject().put("metrics", new JsonObject())))
        .isInstanceOf(BadMessage.class).hasMessageContaining("agent_id");
    assertThatThrownBy(() -> HeartbeatRequest.parse(new JsonObject().put("agent_id", "a1").put("metrics", "x")))
        .isInstanceOf(BadMessage.class).hasMessageContaining("metrics");
  }
}
