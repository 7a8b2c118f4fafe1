package dev.svc.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent driven over HTTP against the dispatcher with short clocks: leases expire and requeue,
 * three expiries fail the test, a silent agent goes offline by the timer alone and its running
 * test fails "Agent lost", and an agent never holds two tests.
 */
class HeartbeatDispatcherTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir
  Path home;

  private TestServer server;

  @BeforeEach
  void start() {
    Timings fast = Timings.defaults().withLeases(1_000, 0).withStale(1_500, 0).withSweep(50);
    server = TestServer.start(home, new TestServer.Options().insecure().timings(fast));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private String register(String name) {
    return server.post("/api/v1/agents/register", new JsonObject().put("name", name).put("hostname", name))
        .bodyAsJsonObject().getString("agent_id");
  }

  private JsonArray heartbeat(String agentId) {
    return server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject().put("status", "idle"))
        .bodyAsJsonObject().getJsonArray("commands");
  }

  private String submit(String agentId, String model) {
    return server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId).put("model_path", model)
        .put("engine_name", "vllm")).bodyAsJsonObject().getString("id");
  }

  private JsonObject test(String id) {
    return server.get("/api/v1/quicktest/" + id).bodyAsJsonObject();
  }

  @Test
  void leaseExpiryRequeuesAndTheThirdExpiryFailsTheTest() {
    String agent = register("lazy");
    String testId = submit(agent, "/models/a");
    try (EventWaiter events = EventWaiter.source(server.vertx(), testId)) {
      for (int attempt = 1; attempt <= 3; attempt++) {
        JsonArray commands = heartbeat(agent);
        assertThat(commands).as("attempt %d", attempt).hasSize(1);
        assertThat(commands.getJsonObject(0).getString("test_id")).isEqualTo(testId);
        events.status("dispatched", WAIT);
        assertThat(test(testId).getInteger("attempts")).isEqualTo(attempt);
        if (attempt < 3) {
          events.status("queued", WAIT);
          assertThat(test(testId).getString("status")).isEqualTo("queued");
        }
      }
      JsonObject failed = events.status("failed", WAIT);
      assertThat(failed.getJsonObject("data").getString("error")).isEqualTo("Agent did not start the test");
    }
    JsonObject finalState = test(testId);
    assertThat(finalState.getString("status")).isEqualTo("failed");
    assertThat(finalState.getString("error")).isEqualTo("Agent did not start the test");
    assertThat(heartbeat(agent)).isEmpty();
  }

  @Test
  void aRunTestWhoseAnswerWasLostGoesAgainUntilTheAgentHasItAcrossARestart() {
    // leases long enough that no sweep requeues the test while this runs
    server.close();
    server = TestServer.start(home, new TestServer.Options().insecure()
        .timings(Timings.defaults().withLeases(600_000, 0).withSweep(50)));
    String agent = register("unlucky");
    String testId = submit(agent, "/models/a");
    JsonObject first = heartbeat(agent).getJsonObject(0);
    assertThat(first.getString("type")).isEqualTo("run_test");
    // that answer never reached the agent: its next heartbeat shows no sign of the test
    assertThat(heartbeat(agent)).as("sent again").containsExactly(first);
    server.close();
    server = TestServer.start(home, new TestServer.Options().insecure()
        .timings(Timings.defaults().withLeases(600_000, 0).withSweep(50)));
    assertThat(heartbeat(agent)).as("sent again after a restart").containsExactly(first);
    assertThat(test(testId).getString("status")).isEqualTo("dispatched");
    assertThat(test(testId).getInteger("attempts")).as("one dispatch, one lease").isEqualTo(1);

    JsonObject acked = new JsonObject().put("status", "idle")
        .put("acked_command_ids", new JsonArray().add(first.getString("command_id")));
    assertThat(server.post("/api/v1/agents/" + agent + "/heartbeat", acked).bodyAsJsonObject().getJsonArray("commands"))
        .as("acknowledged").isEmpty();
    JsonObject busy = new JsonObject().put("status", "running").put("current_task", testId);
    assertThat(server.post("/api/v1/agents/" + agent + "/heartbeat", busy).bodyAsJsonObject().getJsonArray("commands"))
        .as("its current task").isEmpty();
  }

  @Test
  void reportingRunningKeepsTheTestAcrossTheLease() {
    String agent = register("prompt");
    String testId = submit(agent, "/models/a");
    try (EventWaiter events = EventWaiter.source(server.vertx(), testId)) {
      heartbeat(agent);
      assertThat(server.post("/api/v1/quicktest/" + testId + "/status", new JsonObject().put("status", "running"))
          .statusCode()).isEqualTo(200);
      events.status("running", WAIT);
      // Another agent's test, dispatched later, has its lease expire: the sweep has passed our lease too.
      String later = register("later");
      String laterTest = submit(later, "/models/b");
      try (EventWaiter laterEvents = EventWaiter.source(server.vertx(), laterTest)) {
        heartbeat(later);
        assertThat(heartbeat(agent)).as("an agent holding a running test gets no other").isEmpty();
        laterEvents.status("queued", WAIT);
      }
      assertThat(test(testId).getString("status")).isEqualTo("running");
      assertThat(events.all()).extracting(e -> e.getJsonObject("data").getString("status"))
          .containsExactly("dispatched", "running");
    }
  }

  @Test
  void silentAgentGoesOfflineByTheTimerAndItsRunningTestFailsAgentLost() {
    String agent = register("quiet");
    String testId = submit(agent, "/models/a");
    try (EventWaiter agentEvents = EventWaiter.source(server.vertx(), agent);
         EventWaiter testEvents = EventWaiter.source(server.vertx(), testId)) {
      assertThat(heartbeat(agent)).hasSize(1);
      server.post("/api/v1/quicktest/" + testId + "/status", new JsonObject().put("status", "running"));
      // From here on nothing is read or sent: only the timer can notice.
      JsonObject offline = agentEvents.next(e -> "agent_status".equals(e.getString("type"))
          && "offline".equals(e.getJsonObject("data").getString("status")), WAIT);
      assertThat(offline.getJsonObject("data").getString("agent_id")).isEqualTo(agent);
      JsonObject lost = testEvents.status("failed", WAIT);
      assertThat(lost.getJsonObject("data").getString("error")).isEqualTo("Agent lost");
    }
    assertThat(server.get("/api/v1/agents/" + agent).bodyAsJsonObject().getString("status")).isEqualTo("offline");
    assertThat(test(testId).getString("error")).isEqualTo("Agent lost");
    // A heartbeat brings the agent back.
    heartbeat(agent);
    assertThat(server.get("/api/v1/agents/" + agent).bodyAsJsonObject().getString("status")).isEqualTo("idle");
  }

  @Test
  void testAgentsAreNeverStale() {
    String simulated = server.post("/api/v1/agents/test", new JsonObject().put("name", "sim")).bodyAsJsonObject()
        .getString("id");
    String real = register("real");
    heartbeat(real);
    try (EventWaiter realEvents = EventWaiter.source(server.vertx(), real)) {
      realEvents.next(e -> "offline".equals(e.getJsonObject("data").getString("status")), WAIT);
    }
    // The sweep that took the real agent offline passed over the test agent.
    assertThat(server.get("/api/v1/agents/" + simulated).bodyAsJsonObject().getString("status")).isEqualTo("idle");
  }

  @Test
  void twoQueuedTestsOfOneAgentAreNeverActiveAtOnce() {
    String agent = register("busy");
    String first = submit(agent, "/models/first");
    String second = submit(agent, "/models/second");
    try (EventWaiter firstEvents = EventWaiter.source(server.vertx(), first)) {
      assertThat(heartbeat(agent)).extracting(c -> ((JsonObject) c).getString("test_id")).containsExactly(first);
      // unacknowledged, the first test's run_test comes again; never the second test
      assertThat(heartbeat(agent)).extracting(c -> ((JsonObject) c).getString("test_id")).containsExactly(first);
      firstEvents.status("queued", WAIT);
      // After the lease expired the oldest test is offered again, still alone.
      assertThat(heartbeat(agent)).extracting(c -> ((JsonObject) c).getString("test_id")).containsExactly(first);
      assertThat(test(second).getString("status")).isEqualTo("queued");
      server.post("/api/v1/quicktest/" + first + "/status", new JsonObject().put("status", "running"));
      server.post("/api/v1/quicktest/" + first + "/status", new JsonObject().put("status", "completed"));
    }
    assertThat(heartbeat(agent)).extracting(c -> ((JsonObject) c).getString("test_id")).containsExactly(second);
  }

  @Test
  void heartbeatMetricsArePublishedAsAgentStatusWhenTheyChange() {
    String agent = register("metered");
    JsonObject beat = new JsonObject().put("status", "idle").put("gpu_utilization_pct", 10.0).put("storage_gb_free", 500.0);
    try (EventWaiter events = EventWaiter.source(server.vertx(), agent)) {
      server.post("/api/v1/agents/" + agent + "/heartbeat", beat);
      JsonObject first = events.next(e -> "agent_status".equals(e.getString("type")), WAIT);
      assertThat(first.getJsonObject("data").getDouble("gpu_utilization_pct")).isEqualTo(10.0);
      server.post("/api/v1/agents/" + agent + "/heartbeat", beat);
      server.post("/api/v1/agents/" + agent + "/heartbeat", beat.copy().put("gpu_utilization_pct", 97.5));
      JsonObject second = events.next(e -> "agent_status".equals(e.getString("type")), WAIT);
      assertThat(second.getJsonObject("data").getDouble("gpu_utilization_pct")).isEqualTo(97.5);
      assertThat(second.getJsonObject("data").getString("status")).isEqualTo("idle");
      // The unchanged heartbeat in between published nothing.
      assertThat(events.all()).filteredOn(e -> "agent_status".equals(e.getString("type"))).hasSize(2);
    }
  }

  @Test
  void cancellingADispatchedTestSendsCancelTestAndClosesItsStatus() {
    String agent = register("cancelled");
    String testId = submit(agent, "/models/a");
    try (EventWaiter events = EventWaiter.source(server.vertx(), testId)) {
      assertThat(heartbeat(agent)).hasSize(1);
      server.post("/api/v1/quicktest/" + testId + "/status", new JsonObject().put("status", "running"));
      assertThat(server.post("/api/v1/quicktest/" + testId + "/cancel", new JsonObject()).statusCode()).isEqualTo(200);
      JsonObject failed = events.status("failed", WAIT);
      assertThat(failed.getJsonObject("data").getString("error")).isEqualTo("Cancelled by user");
    }
    JsonArray commands = heartbeat(agent);
    assertThat(commands).hasSize(1);
    assertThat(commands.getJsonObject(0).getString("type")).isEqualTo("cancel_test");
    assertThat(commands.getJsonObject(0).getJsonObject("payload").getString("test_id")).isEqualTo(testId);
    assertThat(heartbeat(agent)).as("a command is delivered once").isEmpty();
    // The agent's late report cannot revive the test.
    assertThat(server.post("/api/v1/quicktest/" + testId + "/status", new JsonObject().put("status", "completed"))
        .statusCode()).isEqualTo(409);
  }
}
