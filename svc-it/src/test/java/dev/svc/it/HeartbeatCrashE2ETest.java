package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.Timestamps;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.engines.fixtures.FaultCounts;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, acceptance 3: heartbeats are kept in memory and written behind, so a server killed with
 * SIGKILL right after a burst of heartbeats and dispatches must still have every test, lease,
 * command and result its API acknowledged, and must not mark offline an agent whose last
 * heartbeats it never wrote before that agent's stale window has passed.
 *
 * <p>Twelve agents speak the agent protocol from this test (mutual TLS, their own tokens), so
 * that what the server acknowledged is known exactly.
 */
class HeartbeatCrashE2ETest {

  private static final int AGENTS = 12;

  /** An agent of the test: its id, name and a client with its certificate and token. */
  private record Agent(String id, String name, Http http) {
    JsonObject heartbeat(JsonObject metrics) {
      Http.Response response = http.post("/api/v1/agents/" + id + "/heartbeat", metrics);
      assertThat(response.status()).as(name + " heartbeat: " + response).isEqualTo(200);
      return response.json();
    }

    /** An idle heartbeat that acknowledges nothing by id, so that its commands come again until it does. */
    JsonObject idle() {
      return heartbeat(new JsonObject().put("status", "idle").put("gpu_utilization_pct", 0.0).put("uptime_s", 10.0)
          .put("acked_command_ids", new JsonArray()));
    }
  }

  @Test
  void aServerKilledAfterABurstOfHeartbeatsLosesNoWorkAndMarksNoLiveAgentOffline() throws Exception {
    try (ServerProcess server = ServerProcess.start()) {
      CertificateAuthority ca = CertificateAuthority.loadOrCreate(server.home().resolve("certs"));
      List<Agent> agents = new ArrayList<>();
      for (int i = 0; i < AGENTS; i++) {
        ServerProcess.Provisioned provisioned = server.provision("crash-" + i);
        Http http = Http.withClientCertificate(server.url(), provisioned.token(), server.caPem(),
            ca.issueClientKeyPair(provisioned.name()));
        Http.Response registered = http.post("/api/v1/agents/register", new JsonObject()
            .put("name", provisioned.name()).put("hostname", provisioned.name()).put("cpu_arch", "x86_64"));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        agents.add(new Agent(provisioned.id(), provisioned.name(), http));
      }
      for (int beat = 0; beat < 3; beat++) {
        agents.forEach(Agent::idle);
      }

      // what the server acknowledges, agent by agent: 0-2 hold a dispatched test, 3-5 a running one
      // with two log lines, 6-8 a completed one with its result; each of 0-8 has a second test queued;
      // 9 has a cleanup command and 4 a cancel_test, neither delivered yet; 10 and 11 hold a
      // dispatched test each whose lease the test expires later, to see the sweeps run
      Map<String, String> expected = new LinkedHashMap<>();
      Map<String, String> commandOf = new LinkedHashMap<>();
      List<String> completed = new ArrayList<>();
      List<String> firsts = new ArrayList<>();
      for (int i = 0; i < 9; i++) {
        Agent agent = agents.get(i);
        String first = queue(server, agent);
        firsts.add(first);
        String second = queue(server, agent);
        JsonObject run = runTest(agent.idle(), first);
        commandOf.put(first, run.getString("command_id"));
        expected.put(second, "queued");
        if (i < 3) {
          expected.put(first, "dispatched");
          continue;
        }
        ok(agent.http.post("/api/v1/quicktest/" + first + "/status", new JsonObject().put("status", "running")));
        ok(agent.http.post("/api/v1/quicktest/" + first + "/logs", new JsonObject()
            .put("lines", new JsonArray().add("loading " + first).add("measuring " + first)).put("seq", 1)));
        if (i < 6) {
          expected.put(first, "running");
          continue;
        }
        ok(agent.http.post("/api/v1/agents/" + agent.id + "/results", new JsonObject()
            .put("command_id", run.getString("command_id")).put("test_id", first).put("status", "completed")
            .put("result_data", new JsonObject().put("engine", "vllm").put("model", "/models/" + first).put("passed", true))));
        expected.put(first, "completed");
        completed.add(first);
      }
      ok(server.api().post("/api/v1/agents/" + agents.get(9).id + "/cleanup", new JsonObject()));
      String cancelled = firsts.get(4);
      ok(server.api().post("/api/v1/quicktest/" + cancelled + "/cancel", new JsonObject()));
      expected.put(cancelled, "failed");
      List<String> markers = new ArrayList<>();
      for (int i = 10; i < 12; i++) {
        String marker = queue(server, agents.get(i));
        runTest(agents.get(i).idle(), marker);
        markers.add(marker);
      }
      // the last burst: its liveness is only in the server's memory when it dies; it dispatches the
      // second tests of the agents whose first one ended
      for (Agent agent : agents) {
        agent.idle().getJsonArray("commands").stream().map(JsonObject.class::cast)
            .filter(c -> "run_test".equals(c.getString("type")) && expected.containsKey(c.getString("test_id")))
            .forEach(c -> expected.put(c.getString("test_id"), "dispatched"));
      }
      Map<String, String> leases = new LinkedHashMap<>();
      for (String id : expected.keySet()) {
        if ("dispatched".equals(expected.get(id))) {
          leases.put(id, text(server, "SELECT lease_expires_at FROM quick_tests WHERE id = ?", id));
        }
      }
      server.kill9();

      // as if none of the agents' heartbeats of the last stale window had been written
      String longAgo = Timestamps.format(Instant.now().minus(Duration.ofHours(1)));
      update(server, "UPDATE agents SET last_heartbeat_at = ? WHERE name LIKE 'crash-%'", longAgo);
      update(server, "UPDATE quick_tests SET lease_expires_at = ? WHERE id = ?", longAgo, markers.get(0));
      server.restart();

      // two sweeps have run once the second marker, expired after the first was requeued, is requeued too
      Processes.await("the first sweep after the restart", Duration.ofSeconds(60),
          () -> "queued".equals(status(server, markers.get(0))));
      update(server, "UPDATE quick_tests SET lease_expires_at = ? WHERE id = ?", longAgo, markers.get(1));
      Processes.await("the second sweep after the restart", Duration.ofSeconds(60),
          () -> "queued".equals(status(server, markers.get(1))));

      Map<String, String> statuses = new LinkedHashMap<>();
      for (String id : expected.keySet()) {
        statuses.put(id, status(server, id));
      }
      Map<String, String> leasesAfter = new LinkedHashMap<>();
      for (String id : leases.keySet()) {
        leasesAfter.put(id, text(server, "SELECT lease_expires_at FROM quick_tests WHERE id = ?", id));
      }
      Map<String, Long> resultRows = new LinkedHashMap<>();
      for (String id : completed) {
        resultRows.put(id, count(server, "SELECT COUNT(*) FROM results WHERE test_id = ?", id));
      }
      long lines = count(server, "SELECT COUNT(*) FROM events WHERE type = 'log'"
          + " AND (data LIKE '%\"line\":\"loading %' OR data LIKE '%\"line\":\"measuring %')");
      JsonArray toNine = agents.get(9).idle().getJsonArray("commands");
      JsonArray toFour = agents.get(4).idle().getJsonArray("commands");
      long offline = agents.stream()
          .filter(a -> "offline".equals(server.api().get("/api/v1/agents/" + a.id).json().getString("status"))).count();
      FaultCounts.of("HeartbeatCrashE2ETest: svc web killed with SIGKILL after a burst of heartbeats")
          .put("tests acknowledged", expected.size())
          .put("with the acknowledged status", statuses.entrySet().stream().filter(e -> e.getValue().equals(expected.get(e.getKey()))).count())
          .put("leases", leases.size()).put("leases unchanged", leases.entrySet().stream().filter(e -> e.getValue().equals(leasesAfter.get(e.getKey()))).count())
          .put("results acknowledged", completed.size()).put("stored once", resultRows.values().stream().filter(n -> n == 1).count())
          .put("log lines acknowledged", 2L * 6).put("stored", lines)
          .put("commands acknowledged", 2).put("delivered", (toNine.isEmpty() ? 0 : 1) + (toFour.isEmpty() ? 0 : 1))
          .put("agents", AGENTS).put("marked offline", offline)
          .report();
      assertThat(statuses).isEqualTo(expected);
      assertThat(leasesAfter).isEqualTo(leases);
      assertThat(resultRows.values()).allMatch(n -> n == 1);
      assertThat(lines).isEqualTo(2L * 6);
      assertThat(toNine.stream().map(c -> ((JsonObject) c).getString("type"))).containsExactly("cleanup_storage");
      assertThat(toFour.stream().map(c -> ((JsonObject) c).getString("type"))).contains("cancel_test");
      assertThat(offline).as("agents within their stale window marked offline").isZero();
    }
  }

  private static String queue(ServerProcess server, Agent agent) {
    Http.Response created = server.api().post("/api/v1/quicktest", new JsonObject().put("agent_id", agent.id)
        .put("model_path", "/models/m-" + agent.name).put("engine_name", "vllm"));
    assertThat(created.status()).as(created.toString()).isEqualTo(202);
    return created.json().getString("id");
  }

  /** The run_test command of {@code testId} in a heartbeat's answer. */
  private static JsonObject runTest(JsonObject reply, String testId) {
    return reply.getJsonArray("commands").stream().map(JsonObject.class::cast)
        .filter(c -> "run_test".equals(c.getString("type")) && testId.equals(c.getString("test_id")))
        .findFirst().orElseThrow(() -> new AssertionError("No run_test for " + testId + " in " + reply.encode()));
  }

  private static void ok(Http.Response response) {
    assertThat(response.status()).as(response.toString()).isBetween(200, 202);
  }

  private static String status(ServerProcess server, String testId) {
    return server.api().get("/api/v1/quicktest/" + testId).json().getString("status");
  }


  private static void update(ServerProcess server, String sql, String... params) throws SQLException {
    try (Connection c = server.database(); PreparedStatement statement = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        statement.setString(i + 1, params[i]);
      }
      assertThat(statement.executeUpdate()).as(sql).isPositive();
    }
  }

  private static String text(ServerProcess server, String sql, String param) throws SQLException {
    try (Connection c = server.database(); PreparedStatement statement = c.prepareStatement(sql)) {
      statement.setString(1, param);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next() ? rows.getString(1) : null;
      }
    }
  }

  private static long count(ServerProcess server, String sql, String... params) throws SQLException {
    try (Connection c = server.database(); PreparedStatement statement = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        statement.setString(i + 1, params[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }
}
