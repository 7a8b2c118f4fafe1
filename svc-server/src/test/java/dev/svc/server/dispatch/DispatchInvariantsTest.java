package dev.svc.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dispatch rules hold where a read-then-write could not hold them: concurrent heartbeats of one
 * agent take one test between them, the database itself refuses a second active test, an agent
 * cannot start a test it was not given, commands are sent until acknowledged, a deleted agent's
 * tests end with it, a returning lost agent is told to stop and its late result is refused, and
 * one agent's report never touches another's result.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DispatchInvariantsTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir
  Path home;

  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private TestServer start(Timings timings) {
    TestServer.Options options = new TestServer.Options().insecure().timings(timings);
    String url = databaseUrl();
    server = TestServer.start(home, url == null ? options : options.dbUrl(url));
    return server;
  }

  /** The server's database: null for the default, SQLite under the test's home. */
  String databaseUrl() {
    return null;
  }

  /** A unique index refused the write: SQLite says so in its message, PostgreSQL with its SQLSTATE. */
  private static boolean uniqueViolation(SQLException e) {
    return "23505".equals(e.getSQLState()) || String.valueOf(e.getMessage()).contains("UNIQUE constraint failed");
  }

  private String jdbcUrl() {
    String url = databaseUrl();
    return url != null ? url : "jdbc:sqlite:" + home.resolve("svc.db");
  }

  @Test
  void concurrentHeartbeatsOfOneAgentTakeOneTestBetweenThem() throws Exception {
    start(Timings.defaults());
    for (int trial = 0; trial < 15; trial++) {
      String agent = register("racer-" + trial);
      List<String> queued = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        queued.add(submit(agent, "/models/m" + i));
      }
      List<HttpResponse<Buffer>> replies = TestServer.concurrently(6, i -> server.client()
          .post("/api/v1/agents/" + agent + "/heartbeat").sendJsonObject(new JsonObject().put("status", "idle")));
      List<String> handedOut = new ArrayList<>();
      for (HttpResponse<Buffer> reply : replies) {
        assertThat(reply.statusCode()).as(reply.bodyAsString()).isEqualTo(200);
        reply.bodyAsJsonObject().getJsonArray("commands").forEach(c -> handedOut.add(((JsonObject) c).getString("test_id")));
      }
      // the oldest test, dispatched once; a heartbeat that came after the dispatch gets its run_test again
      // (none of them acknowledged it), never another test
      assertThat(handedOut).as("trial %d", trial).isNotEmpty().containsOnly(queued.get(0));
      assertThat(count("SELECT attempts FROM quick_tests WHERE id = '" + queued.get(0) + "'")).as("trial %d", trial).isEqualTo(1);
      assertThat(count("SELECT COUNT(*) FROM quick_tests WHERE agent_id = '" + agent + "'"
          + " AND status IN ('dispatched', 'running')")).as("trial %d", trial).isEqualTo(1);
    }
  }

  @Test
  void theDatabaseRefusesASecondActiveTestOfOneAgent() throws Exception {
    start(Timings.defaults());
    String agent = register("node");
    String first = submit(agent, "/models/a");
    String second = submit(agent, "/models/b");
    heartbeat(agent, null);
    assertThat(test(first).getString("status")).isEqualTo("dispatched");
    // what another server node (or any writer) would try: the unique index stops it
    assertThatThrownBy(() -> execute("UPDATE quick_tests SET status = 'running' WHERE id = '" + second + "'"))
        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(uniqueViolation(e)).as(e.getMessage()).isTrue());
    assertThat(test(second).getString("status")).isEqualTo("queued");
  }

  @Test
  void anAgentCannotStartAQueuedTestThatWasNeverDispatchedToIt() {
    start(Timings.defaults());
    String agent = register("eager");
    String testId = submit(agent, "/models/a");
    HttpResponse<Buffer> started = server.post("/api/v1/quicktest/" + testId + "/status",
        new JsonObject().put("status", "running"));
    assertThat(started.statusCode()).isEqualTo(409);
    assertThat(started.bodyAsJsonObject().getString("error")).contains("not dispatched");
    assertThat(test(testId).getString("status")).isEqualTo("queued");
    HttpResponse<Buffer> result = server.post("/api/v1/agents/" + agent + "/results", new JsonObject()
        .put("command_id", test(testId).getString("command_id")).put("test_id", testId).put("status", "completed")
        .put("result_data", new JsonObject().put("engine", "vllm").put("model", "/models/a")));
    assertThat(result.statusCode()).isEqualTo(409);
    assertThat(test(testId).getString("status")).isEqualTo("queued");
    assertThat(server.get("/api/v1/results").bodyAsJsonObject().getLong("total")).isZero();
  }

  @Test
  void aCommandIsSentInEveryHeartbeatUntilTheAgentAcknowledgesIt() {
    start(Timings.defaults());
    String agent = register("acking");
    String testId = submit(agent, "/models/a");
    heartbeat(agent, new JsonArray());
    running(testId);
    assertThat(server.post("/api/v1/quicktest/" + testId + "/cancel", new JsonObject()).statusCode()).isEqualTo(200);

    JsonObject cancel = only(heartbeat(agent, new JsonArray()), "cancel_test");
    assertThat(cancel.getString("test_id")).isEqualTo(testId);
    // the reply was lost: the agent acknowledges nothing, and gets the command again
    assertThat(only(heartbeat(agent, new JsonArray()), "cancel_test").getString("command_id"))
        .isEqualTo(cancel.getString("command_id"));
    assertThat(heartbeat(agent, new JsonArray().add(cancel.getString("command_id")))).isEmpty();
    assertThat(heartbeat(agent, new JsonArray())).isEmpty();
  }

  @Test
  void anAgentThatAcknowledgesNothingByIdHasItsCommandsAcknowledgedByItsNextHeartbeat() {
    start(Timings.defaults());
    String agent = register("legacy");
    assertThat(server.post("/api/v1/agents/" + agent + "/cleanup", new JsonObject()).statusCode()).isEqualTo(202);
    only(heartbeat(agent, null), "cleanup_storage");
    assertThat(heartbeat(agent, null)).isEmpty();
  }

  @Test
  void aReturningLostAgentIsToldToStopAndItsLateResultIsRefused() {
    start(Timings.defaults().withLeases(500, 0).withStale(800, 0).withSweep(50));
    String agent = register("wanderer");
    String testId = submit(agent, "/models/a");
    heartbeat(agent, null);
    running(testId);
    try (EventWaiter events = EventWaiter.source(server.vertx(), testId)) {
      JsonObject failed = events.status("failed", WAIT);
      assertThat(failed.getJsonObject("data").getString("error")).isEqualTo("Agent lost");
    }
    JsonObject back = new JsonObject().put("status", "running").put("current_task", testId);
    for (int beat = 0; beat < 2; beat++) { // until it stops, whatever reply it lost
      JsonArray commands = server.post("/api/v1/agents/" + agent + "/heartbeat", back).bodyAsJsonObject()
          .getJsonArray("commands");
      assertThat(only(commands, "cancel_test").getString("test_id")).isEqualTo(testId);
    }
    HttpResponse<Buffer> late = server.post("/api/v1/agents/" + agent + "/results", new JsonObject()
        .put("command_id", test(testId).getString("command_id")).put("test_id", testId).put("status", "completed")
        .put("result_data", new JsonObject().put("engine", "vllm").put("model", "/models/a")));
    assertThat(late.statusCode()).isEqualTo(409);
    assertThat(late.bodyAsJsonObject().getString("error")).contains("Agent lost");
    JsonObject after = test(testId);
    assertThat(after.getString("status")).isEqualTo("failed");
    assertThat(after.getValue("result_id")).isNull();
    assertThat(server.get("/api/v1/results").bodyAsJsonObject().getLong("total")).isZero();
    // once it reports idle, nothing more to stop
    assertThat(heartbeat(agent, null)).isEmpty();
  }

  @Test
  void deletingAnAgentFailsTheTestsItHeldAndTheCampaignOnIt() throws Exception {
    start(Timings.defaults());
    String agent = register("doomed");
    JsonObject campaign = server.post("/api/v1/campaigns", new JsonObject().put("name", "on doomed")
        .put("agent_id", agent).put("config", new JsonObject()
            .put("models", new JsonArray().add(new JsonObject().put("name", "a").put("path", "/models/a"))
                .add(new JsonObject().put("name", "b").put("path", "/models/b")))
            .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")))
            .put("benchmarks", new JsonArray().add("throughput")))).bodyAsJsonObject();
    String campaignId = campaign.getString("id");
    String queued;
    String running;
    try (EventWaiter campaignEvents = EventWaiter.source(server.vertx(), campaignId)) {
      assertThat(server.post("/api/v1/campaigns/" + campaignId + "/launch", new JsonObject()).statusCode())
          .isEqualTo(202);
      campaignEvents.next(e -> "log".equals(e.getString("type"))
          && e.getJsonObject("data").getString("line").startsWith("[1/2]"), WAIT);
      running = waitForQueuedTest(agent);
      heartbeat(agent, null);
      running(running);
      queued = submit(agent, "/models/c");

      assertThat(TestServer.send(server.client(), HttpMethod.DELETE, "/api/v1/agents/" + agent, null, null).statusCode())
          .isEqualTo(200);

      for (String id : List.of(running, queued)) {
        JsonObject test = test(id);
        assertThat(test.getString("status")).as(id).isEqualTo("failed");
        assertThat(test.getString("error")).as(id).isEqualTo("Agent deleted");
      }
      // the campaign does not wait for its row's 30-minute timeout
      JsonObject failed = campaignEvents.next(e -> "status".equals(e.getString("type"))
          && "failed".equals(e.getJsonObject("data").getString("status")), WAIT);
      assertThat(failed.getJsonObject("data").getString("error")).contains("deleted");
    }
    assertThat(count("SELECT COUNT(*) FROM quick_tests WHERE status IN ('queued', 'dispatched', 'running')")).isZero();
    assertThat(server.post("/api/v1/agents/" + agent + "/heartbeat", new JsonObject()).statusCode()).isEqualTo(404);
  }

  @Test
  void oneAgentsReportUnderAnotherAgentsCommandIdLeavesThatAgentsResultAlone() {
    start(Timings.defaults());
    String a = register("agent-a");
    String b = register("agent-b");
    String testA = submit(a, "/models/a");
    String testB = submit(b, "/models/b");
    heartbeat(a, null);
    heartbeat(b, null);
    String commandA = test(testA).getString("command_id");
    JsonObject dataA = new JsonObject().put("engine", "vllm").put("model", "/models/a").put("passed", true);
    String resultA = server.post("/api/v1/agents/" + a + "/results", new JsonObject().put("command_id", commandA)
        .put("test_id", testA).put("status", "completed").put("result_data", dataA)).bodyAsJsonObject()
        .getString("result_id");

    HttpResponse<Buffer> forged = server.post("/api/v1/agents/" + b + "/results", new JsonObject()
        .put("command_id", commandA).put("test_id", testB).put("status", "completed")
        .put("result_data", new JsonObject().put("engine", "vllm").put("model", "/models/forged")));
    assertThat(forged.statusCode()).isEqualTo(202);
    String resultB = forged.bodyAsJsonObject().getString("result_id");

    assertThat(resultB).isNotEqualTo(resultA);
    assertThat(test(testA).getString("result_id")).isEqualTo(resultA);
    assertThat(test(testB).getString("result_id")).isEqualTo(resultB);
    assertThat(server.get("/api/v1/results/" + resultA).bodyAsJsonObject().getString("model")).isEqualTo("/models/a");
    assertThat(server.get("/api/v1/results/" + resultB).bodyAsJsonObject().getString("agent_id")).isEqualTo(b);
  }

  // --- helpers ---

  private String register(String name) {
    return server.post("/api/v1/agents/register", new JsonObject().put("name", name).put("hostname", name))
        .bodyAsJsonObject().getString("agent_id");
  }

  private String submit(String agentId, String model) {
    HttpResponse<Buffer> r = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId)
        .put("model_path", model).put("engine_name", "vllm"));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(202);
    return r.bodyAsJsonObject().getString("id");
  }

  /** A heartbeat; {@code acks} null sends no acknowledgement field at all (an older agent). */
  private JsonArray heartbeat(String agentId, JsonArray acks) {
    JsonObject beat = new JsonObject().put("status", "idle");
    if (acks != null) {
      beat.put("acked_command_ids", acks);
    }
    HttpResponse<Buffer> r = server.post("/api/v1/agents/" + agentId + "/heartbeat", beat);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject().getJsonArray("commands");
  }

  private void running(String testId) {
    HttpResponse<Buffer> r = server.post("/api/v1/quicktest/" + testId + "/status", new JsonObject().put("status", "running"));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
  }

  private JsonObject test(String id) {
    return server.get("/api/v1/quicktest/" + id).bodyAsJsonObject();
  }

  private String waitForQueuedTest(String agentId) {
    try (EventWaiter all = EventWaiter.everything(server.vertx())) {
      JsonObject page = server.get("/api/v1/quicktest?agent_id=" + agentId).bodyAsJsonObject();
      if (page.getJsonArray("items").isEmpty()) {
        all.next(e -> "status".equals(e.getString("type"))
            && "queued".equals(e.getJsonObject("data").getString("status")), WAIT);
        page = server.get("/api/v1/quicktest?agent_id=" + agentId).bodyAsJsonObject();
      }
      return page.getJsonArray("items").getJsonObject(0).getString("id");
    }
  }

  private static JsonObject only(JsonArray commands, String type) {
    assertThat(commands).as("commands").hasSize(1);
    JsonObject command = commands.getJsonObject(0);
    assertThat(command.getString("type")).isEqualTo(type);
    return command;
  }


  private long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl());
         ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl())) {
      c.createStatement().executeUpdate(sql);
    }
  }
}
