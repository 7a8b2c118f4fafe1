package dev.svc.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which heartbeats are events: a change of status or task and a real move of a metric are; uptime and
 * small drifts are not (they would add one event per heartbeat), yet the agent's row has every value.
 */
class HeartbeatEventsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  private static JsonObject beat(double uptime, double gpuPct, double gpuGb, double storageGb) {
    return new JsonObject().put("status", "idle").put("uptime_s", uptime).put("gpu_utilization_pct", gpuPct)
        .put("gpu_memory_used_gb", gpuGb).put("storage_gb_free", storageGb);
  }

  @Test
  void onlyStatusTaskAndRealMetricMovesAreEvents() {
    TestServer server = servers.start();
    String agent = server.post("/api/v1/agents/register", new JsonObject().put("name", "beating").put("hostname", "b"))
        .bodyAsJsonObject().getString("agent_id");
    try (EventWaiter events = EventWaiter.source(server.vertx(), agent)) {
      server.post("/api/v1/agents/" + agent + "/heartbeat", beat(10, 5, 2.0, 500));
      events.next(e -> "agent_status".equals(e.getString("type")), WAIT); // the first metrics are news
      int seen = statuses(events).size();

      // uptime alone, and drifts below a step: no event, though the row follows every heartbeat
      for (int i = 1; i <= 20; i++) {
        server.post("/api/v1/agents/" + agent + "/heartbeat", beat(10 + 30 * i, 5 + i % 3, 2.0 + 0.01 * i, 500 - 0.02 * i));
      }
      JsonObject row = server.get("/api/v1/agents/" + agent).bodyAsJsonObject();
      assertThat(row.getDouble("uptime_s")).isEqualTo(610.0);
      assertThat(row.getDouble("storage_gb_free")).isEqualTo(499.6);

      // each of these is an event, in order
      List<JsonObject> changes = List.of(
          beat(700, 7, 2.2, 499.6).put("current_task", "test-1"),
          beat(730, 95, 2.2, 499.6).put("current_task", "test-1"),
          beat(760, 95, 40.0, 499.6).put("current_task", "test-1"),
          beat(790, 95, 40.0, 480.0).put("current_task", "test-1"),
          beat(820, 95, 40.0, 480.0).put("current_task", "test-1").put("status", "running"));
      for (JsonObject change : changes) {
        server.post("/api/v1/agents/" + agent + "/heartbeat", change);
      }
      JsonObject last = events.next(e -> "agent_status".equals(e.getString("type"))
          && "running".equals(e.getJsonObject("data").getString("status")), WAIT);
      List<JsonObject> all = statuses(events);
      assertThat(all).hasSize(seen + changes.size());
      assertThat(all.get(seen).getJsonObject("data").getString("current_task")).isEqualTo("test-1");
      assertThat(all.get(seen + 1).getJsonObject("data").getDouble("gpu_utilization_pct")).isEqualTo(95.0);
      assertThat(all.get(seen + 2).getJsonObject("data").getDouble("gpu_memory_used_gb")).isEqualTo(40.0);
      assertThat(all.get(seen + 3).getJsonObject("data").getDouble("storage_gb_free")).isEqualTo(480.0);
      assertThat(last.getJsonObject("data").getDouble("uptime_s")).isEqualTo(820.0);
    }
  }

  private static List<JsonObject> statuses(EventWaiter events) {
    return events.all().stream().filter(e -> "agent_status".equals(e.getString("type"))).toList();
  }
}
