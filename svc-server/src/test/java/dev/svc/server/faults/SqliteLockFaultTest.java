package dev.svc.server.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import dev.svc.server.Timings;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Another process holds SQLite's write lock on the server's svc.db (the sqlite3 shell in BEGIN EXCLUSIVE
 * with an uncommitted insert) and is then killed mid-transaction. Meanwhile every write is answered 503
 * with Retry-After within a bound, reads and heartbeats keep being answered, and nothing is half-written;
 * once the lock is gone the same writes succeed without a restart, the heartbeats taken meanwhile reach
 * the database, the killed transaction left nothing, and {@code PRAGMA integrity_check} says ok.
 */
class SqliteLockFaultTest {

  /** A log line is the log event of its test or campaign; this is its text. */
  private static final String LINE = "json_extract(data, '$.line')";


  /** SQLite's busy timeout (SqlDatabase) plus the time a loaded machine may take around it. */
  static final long WRITE_ANSWER_BOUND_MS = 5_000 + 7_000;
  private static final int BEFORE = 5;
  private static final int DURING = 4;

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.insecure());

  @Test
  @Timeout(120)
  void writesGet503WithRetryAfterWhileAnotherProcessHoldsTheLockAndSucceedAfterwards() throws Exception {
    long started = System.nanoTime();
    TestServer server = servers.start();
    Path db = servers.home().resolve("svc.db");
    String agentId = register(server, "lock-agent");
    assertThat(server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject().put("status", "idle")
        .put("uptime_s", 1)).statusCode()).isEqualTo(200);

    int accepted = 0;
    for (int i = 0; i < BEFORE; i++) {
      assertThat(create(server, "lock-before-" + i).statusCode()).isEqualTo(201);
      accepted++;
    }

    List<HttpResponse<Buffer>> during = new ArrayList<>();
    List<Long> writeMs = new ArrayList<>();
    int readsOk = 0;
    long slowestReadMs = 0;
    int beatsOk = 0;
    long lastUptime = 0;
    HttpResponse<Buffer> statusBeat;
    try (SqliteLock lock = SqliteLock.take(db, "INSERT INTO settings(key, value) VALUES ('lock-holder', 'x');", 30)) {
      // writes at once, as clients would send them, and reads and heartbeats beside them
      long t0 = System.nanoTime();
      List<Future<HttpResponse<Buffer>>> writes = new ArrayList<>();
      List<Long> ends = new ArrayList<>();
      for (int i = 0; i < DURING; i++) {
        int n = i;
        writes.add(server.client().post("/api/v1/agents").sendJsonObject(new JsonObject().put("name", "lock-during-" + n))
            .onComplete(ar -> {
              synchronized (ends) {
                ends.add(System.nanoTime());
              }
            }));
      }
      for (int i = 0; i < 3; i++) {
        long r0 = System.nanoTime();
        HttpResponse<Buffer> list = server.get("/api/v1/agents");
        slowestReadMs = Math.max(slowestReadMs, (System.nanoTime() - r0) / 1_000_000);
        if (list.statusCode() == 200) {
          readsOk++;
        }
        lastUptime = 1000 + i;
        // liveness and metrics only: kept in memory, written behind once the database takes them
        HttpResponse<Buffer> beat = server.post("/api/v1/agents/" + agentId + "/heartbeat",
            new JsonObject().put("status", "idle").put("uptime_s", lastUptime));
        if (beat.statusCode() == 200) {
          beatsOk++;
        }
      }
      // a change of status is written at once with its event: refused like any write
      statusBeat = server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject().put("status", "error")
          .put("uptime_s", lastUptime));
      Future.join(writes).toCompletionStage().toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
      for (Future<HttpResponse<Buffer>> w : writes) {
        during.add(w.result());
      }
      synchronized (ends) {
        ends.forEach(e -> writeMs.add((e - t0) / 1_000_000));
      }
      assertThat(lock.alive()).as("the lock holder outlived the writes").isTrue();
      lock.kill();
    }
    int refused = 0;
    int withRetryAfter = 0;
    for (HttpResponse<Buffer> r : during) {
      if (r.statusCode() == 503) {
        refused++;
        if (r.getHeader("Retry-After") != null && r.bodyAsJsonObject().getString("error") != null) {
          withRetryAfter++;
        }
      } else if (r.statusCode() == 201) {
        accepted++;
      }
    }
    // the clients retry what was refused
    int retried = 0;
    for (int i = 0; i < DURING; i++) {
      if (during.get(i).statusCode() != 201) {
        HttpResponse<Buffer> again = create(server, "lock-during-" + i);
        if (again.statusCode() == 201) {
          accepted++;
          retried++;
        }
      }
    }
    for (int i = 0; i < 2; i++) {
      if (create(server, "lock-after-" + i).statusCode() == 201) {
        accepted++;
      }
    }
    HttpResponse<Buffer> statusBeatAfter = server.post("/api/v1/agents/" + agentId + "/heartbeat",
        new JsonObject().put("status", "idle").put("uptime_s", lastUptime));
    long uptime = lastUptime;
    long beatStored = awaitValue(db, "SELECT uptime_s FROM agents WHERE id = '" + agentId + "'", uptime, 30_000);
    long stored = count(db, "SELECT count(*) FROM agents WHERE name LIKE 'lock-%' AND name <> 'lock-agent' AND deleted_at IS NULL");
    long holderRows = count(db, "SELECT count(*) FROM settings WHERE key = 'lock-holder'");
    String integrity = integrity(db);
    long maxWriteMs = writeMs.stream().mapToLong(Long::longValue).max().orElse(0);

    FaultCounts.of("SqliteLockFaultTest: sqlite3 holds BEGIN EXCLUSIVE, then killed -9")
        .put("writes_during_lock", DURING).put("answered_503_retry_after", withRetryAfter)
        .put("slowest_write_answer_ms", maxWriteMs).put("reads_ok_during_lock", readsOk)
        .put("slowest_read_ms", slowestReadMs)
        .put("heartbeats_ok_during_lock", beatsOk).put("status_heartbeat_during_lock", statusBeat.statusCode()).put("retried_ok", retried).put("accepted", accepted)
        .put("stored", stored).put("lost", Math.max(0, accepted - stored)).put("duplicated", Math.max(0, stored - accepted))
        .put("killed_holder_rows", holderRows).put("integrity_check", integrity)
        .put("duration_ms", (System.nanoTime() - started) / 1_000_000).report();

    assertThat(refused).as("writes refused while locked").isEqualTo(DURING);
    assertThat(withRetryAfter).isEqualTo(DURING);
    assertThat(maxWriteMs).isLessThan(WRITE_ANSWER_BOUND_MS);
    assertThat(readsOk).isEqualTo(3);
    // a read waits at most behind the one write that waited patiently for the lock
    assertThat(slowestReadMs).isLessThan(WRITE_ANSWER_BOUND_MS);
    assertThat(statusBeat.statusCode()).as(statusBeat.bodyAsString()).isEqualTo(503);
    assertThat(statusBeat.getHeader("Retry-After")).isNotNull();
    assertThat(statusBeatAfter.statusCode()).as(statusBeatAfter.bodyAsString()).isEqualTo(200);
    assertThat(beatsOk).isEqualTo(3);
    assertThat(retried).isEqualTo(DURING);
    assertThat(stored).isEqualTo(accepted).isEqualTo(BEFORE + DURING + 2);
    assertThat(beatStored).isEqualTo(uptime);
    assertThat(holderRows).isZero();
    assertThat(integrity).isEqualTo("ok");
  }

  @Test
  @Timeout(120)
  void aSimulatedTestRunningThroughTheLockGoesOnAfterItAndCompletesWithEveryLineOnce() throws Exception {
    long started = System.nanoTime();
    TestServer server = servers.start(new TestServer.Options().timings(Timings.defaults().withSimulatorDelays(150, 250)));
    Path db = servers.home().resolve("svc.db");
    HttpResponse<Buffer> agent = server.post("/api/v1/agents/test", new JsonObject().put("name", "lock-sim")
        .put("gpu_info", "NVIDIA H100 80GB HBM3").put("gpu_count", 1));
    assertThat(agent.statusCode()).as(agent.bodyAsString()).isEqualTo(201);
    HttpResponse<Buffer> submitted = server.post("/api/v1/quicktest", new JsonObject()
        .put("agent_id", agent.bodyAsJsonObject().getString("id")).put("model_path", "/models/llama-3-8b")
        .put("engine_name", "vllm").put("benchmark_name", "throughput"));
    assertThat(submitted.statusCode()).as(submitted.bodyAsString()).isEqualTo(202);
    String testId = submitted.bodyAsJsonObject().getString("id");
    String lines = "SELECT count(*) FROM events WHERE type = 'log' AND source_id = '" + testId + "'";
    long beforeLock = awaitAtLeast(db, lines, 2, 30_000);

    String log;
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try (SqliteLock lock = SqliteLock.take(db, "SELECT 1;", 30)) {
      // held until the simulation has met the lock at least once
      long end = System.nanoTime() + 30_000_000_000L;
      while (!captured.toString(StandardCharsets.UTF_8).contains("Simulation of quick test " + testId)
          && System.nanoTime() < end) {
        Thread.sleep(50); // polling interval; the deadline bounds the wait
      }
      lock.kill();
    } finally {
      System.setErr(original);
      log = captured.toString(StandardCharsets.UTF_8);
    }
    assertThat(log).contains("Simulation of quick test " + testId);

    String status = awaitStatus(server, testId, 60_000);
    long stored = count(db, lines);
    long distinct = count(db, "SELECT count(DISTINCT " + LINE + ") FROM events WHERE type = 'log' AND source_id = '" + testId + "'");
    long last = count(db, "SELECT count(*) FROM events WHERE type = 'log' AND source_id = '" + testId
        + "' AND " + LINE + " LIKE 'Results written to %' AND id = (SELECT max(id) FROM events WHERE type = 'log'"
        + " AND source_id = '" + testId + "')");
    long results = count(db, "SELECT count(*) FROM results WHERE test_id = '" + testId + "'");
    FaultCounts.of("SqliteLockFaultTest: simulated test running while sqlite3 holds the lock")
        .put("lines_before_lock", beforeLock).put("lines_stored", stored).put("duplicated", stored - distinct)
        .put("ends_with_last_line", last).put("results", results).put("status", status)
        .put("duration_ms", (System.nanoTime() - started) / 1_000_000).report();

    assertThat(status).isEqualTo("completed");
    assertThat(stored).isEqualTo(distinct);
    assertThat(last).isEqualTo(1);
    assertThat(results).isEqualTo(1);
  }

  @Test
  @Timeout(120)
  void aCampaignRunningThroughTheLockCompletesWithEveryLineOfItsTestsOnce() throws Exception {
    long started = System.nanoTime();
    TestServer server = servers.start(new TestServer.Options().timings(Timings.defaults().withSimulatorDelays(100, 150)));
    Path db = servers.home().resolve("svc.db");
    HttpResponse<Buffer> agent = server.post("/api/v1/agents/test", new JsonObject().put("name", "lock-campaign")
        .put("cpu_arch", "x86_64"));
    assertThat(agent.statusCode()).as(agent.bodyAsString()).isEqualTo(201);
    JsonArray models = new JsonArray().add(new JsonObject().put("name", "m1").put("path", "/models/m1"))
        .add(new JsonObject().put("name", "m2").put("path", "/models/m2"));
    HttpResponse<Buffer> created = server.post("/api/v1/campaigns", new JsonObject().put("name", "through-the-lock")
        .put("agent_id", agent.bodyAsJsonObject().getString("id")).put("config", new JsonObject().put("models", models)
            .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")))));
    assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(201);
    String campaignId = created.bodyAsJsonObject().getString("id");
    assertThat(server.post("/api/v1/campaigns/" + campaignId + "/launch", new JsonObject()).statusCode()).isEqualTo(202);
    awaitAtLeast(db, "SELECT count(*) FROM events WHERE type = 'log' AND source_id = '" + campaignId + "'", 3, 30_000);

    String log;
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try (SqliteLock lock = SqliteLock.take(db, "SELECT 1;", 30)) {
      // held until the campaign's lines have met the lock at least once
      long end = System.nanoTime() + 30_000_000_000L;
      while (!metTheLock(captured.toString(StandardCharsets.UTF_8)) && System.nanoTime() < end) {
        Thread.sleep(50); // polling interval; the deadline bounds the wait
      }
      lock.kill();
    } finally {
      System.setErr(original);
      log = captured.toString(StandardCharsets.UTF_8);
    }
    assertThat(metTheLock(log)).as("the campaign met the lock: %s", log).isTrue();

    String status = awaitCampaign(server, campaignId, 90_000);
    int totalRuns = server.get("/api/v1/campaigns/" + campaignId).bodyAsJsonObject().getInteger("total_runs");
    List<String> campaignLines = strings(db, "SELECT " + LINE + " FROM events WHERE type = 'log' AND source_id = '" + campaignId + "'");
    List<String> tests = strings(db, "SELECT id || ' ' || campaign_row || ' ' || status FROM quick_tests"
        + " WHERE campaign_id = '" + campaignId + "' ORDER BY campaign_row");
    int rows = tests.size();
    long completed = tests.stream().filter(t -> t.endsWith(" completed")).count();
    long testLines = 0;
    long missing = 0;
    long duplicated = 0;
    for (String test : tests) {
      String[] parts = test.split(" ");
      String prefix = "[" + (Integer.parseInt(parts[1]) + 1) + "/" + totalRuns + "] ";
      for (String line : strings(db, "SELECT " + LINE + " FROM events WHERE type = 'log' AND source_id = '" + parts[0] + "'")) {
        testLines++;
        long mirrored = campaignLines.stream().filter(l -> l.equals(prefix + line)).count();
        missing += mirrored == 0 ? 1 : 0;
        duplicated += Math.max(0, mirrored - 1);
      }
    }
    FaultCounts.of("SqliteLockFaultTest: campaign running while sqlite3 holds the lock")
        .put("rows", totalRuns).put("rows_with_a_test", rows).put("rows_completed", completed).put("campaign_status", status)
        .put("test_lines", testLines).put("campaign_lines", campaignLines.size()).put("lost", missing)
        .put("duplicated", duplicated).put("duration_ms", (System.nanoTime() - started) / 1_000_000).report();

    assertThat(status).isEqualTo("completed");
    assertThat(rows).isEqualTo(totalRuns).isPositive();
    assertThat(completed).isEqualTo(rows);
    assertThat(missing).isZero();
    assertThat(duplicated).isZero();
  }

  /** The lock met the campaign's row (its simulation paused) or the campaign's own writes. */
  private static boolean metTheLock(String log) {
    return log.contains("paused:") || log.contains("log line not written") || log.contains("failed in the executor");
  }

  private static String awaitCampaign(TestServer server, String campaignId, long deadlineMs) throws Exception {
    return awaitEnded(server, "/api/v1/campaigns/" + campaignId, deadlineMs);
  }

  /** The status of the test or campaign at {@code path} once it is neither queued nor running, or at the deadline. */
  private static String awaitEnded(TestServer server, String path, long deadlineMs) throws Exception {
    long end = System.nanoTime() + deadlineMs * 1_000_000;
    String status = server.get(path).bodyAsJsonObject().getString("status");
    while (("queued".equals(status) || "running".equals(status)) && System.nanoTime() < end) {
      Thread.sleep(100); // polling interval; the deadline bounds the wait
      status = server.get(path).bodyAsJsonObject().getString("status");
    }
    return status;
  }

  private static List<String> strings(Path db, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static long awaitAtLeast(Path db, String sql, long atLeast, long deadlineMs) throws Exception {
    long end = System.nanoTime() + deadlineMs * 1_000_000;
    long value = count(db, sql);
    while (value < atLeast && System.nanoTime() < end) {
      Thread.sleep(50); // polling interval; the deadline bounds the wait
      value = count(db, sql);
    }
    assertThat(value).as(sql).isGreaterThanOrEqualTo(atLeast);
    return value;
  }

  private static String awaitStatus(TestServer server, String testId, long deadlineMs) throws Exception {
    return awaitEnded(server, "/api/v1/quicktest/" + testId, deadlineMs);
  }

  static String register(TestServer server, String name) {
    HttpResponse<Buffer> registered = server.post("/api/v1/agents/register",
        new JsonObject().put("name", name).put("hostname", name + ".lab").put("cpu_arch", "x86_64"));
    assertThat(registered.statusCode()).as(registered.bodyAsString()).isBetween(200, 201);
    JsonObject body = registered.bodyAsJsonObject();
    return body.getString("id", body.getString("agent_id"));
  }

  static HttpResponse<Buffer> create(TestServer server, String name) {
    return server.post("/api/v1/agents", new JsonObject().put("name", name));
  }

  static long count(Path db, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static String integrity(Path db) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** Polls {@code sql} until it gives {@code expected} or the deadline passes; the last value read. */
  static long awaitValue(Path db, String sql, long expected, long deadlineMs) throws Exception {
    long end = System.nanoTime() + deadlineMs * 1_000_000;
    long value = count(db, sql);
    while (value != expected && System.nanoTime() < end) {
      Thread.onSpinWait();
      Thread.sleep(100); // polling interval, not synchronisation: the deadline bounds the wait
      value = count(db, sql);
    }
    return value;
  }
}
