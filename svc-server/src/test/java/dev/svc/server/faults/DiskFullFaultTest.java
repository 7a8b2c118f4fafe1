package dev.svc.server.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.bench.run.RunOutput;
import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.server.TestServer;
import dev.svc.server.results.MetricsFiles;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full file system, for real (a small tmpfs filled with filler files): under the results directory,
 * a metrics.json cut short by the full disk is not indexed (the log says why) and `svc run`'s writer
 * leaves no half-written metrics.json; under the server's home, where svc.db lives, every write is
 * answered 507 with Retry-After while reads and heartbeats go on, and once space is freed the writes
 * succeed without a restart, nothing accepted is lost and {@code PRAGMA integrity_check} says ok.
 */
class DiskFullFaultTest {

  @TempDir
  Path dir;

  @Test
  @Timeout(120)
  void aMetricsFileCutShortByAFullDiskIsNotIndexedAndReadsGoOn() throws Exception {
    long started = System.nanoTime();
    Path results = dir.resolve("results");
    String log;
    long listed;
    int indexStatus;
    int readStatus;
    boolean runOutputFailed;
    boolean runLeftMetrics;
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (Tmpfs fs = Tmpfs.mount(results, "1m")) {
      try (TestServer server = TestServer.start(dir.resolve("home"), new TestServer.Options().insecure()
          .resultsDir(results))) {
        MetricsFiles.write(results.resolve("good/metrics.json"), MetricsFiles.current("good-model", "2026-11-20T10:00:00Z"));
        byte[] big = bigDocument("cut-model").encodePrettily().getBytes(StandardCharsets.UTF_8);
        fs.fill();
        fs.free(2);
        // a tool that writes in place: the disk fills up halfway through
        Files.createDirectories(results.resolve("cut"));
        assertThatThrownBy(() -> Files.write(results.resolve("cut/metrics.json"), big)).isInstanceOf(IOException.class)
            .hasMessageContaining("No space left on device");
        assertThat(Files.size(results.resolve("cut/metrics.json"))).isBetween(1L, (long) big.length - 1);
        // svc run's own writer on the full disk
        fs.free(2);
        Path run = results.resolve("run");
        runOutputFailed = failsForLackOfSpace(() -> RunOutput.write(run, bigDocument("run-model"), new JsonObject(), Map.of()));
        runLeftMetrics = Files.exists(run.resolve("metrics.json"));

        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
          HttpResponse<Buffer> indexed = server.put("/api/v1/settings", null,
              new JsonObject().put("results_dir", results.toString()));
          indexStatus = indexed.statusCode();
        } finally {
          System.setErr(original);
          log = captured.toString(StandardCharsets.UTF_8);
        }
        HttpResponse<Buffer> list = server.get("/api/v1/results");
        listed = list.bodyAsJsonObject().getJsonArray("items").size();
        String id = list.bodyAsJsonObject().getJsonArray("items")
            .getJsonObject(0).getString("id");
        readStatus = server.get("/api/v1/results/" + id).statusCode();
      }
    }
    boolean refusalLogged = log.contains(results.resolve("cut/metrics.json").toString()) && log.contains("cut short");
    FaultCounts.of("DiskFullFaultTest: results directory on a full tmpfs")
        .put("metrics_files", 3).put("complete", 1).put("indexed", listed).put("cut_short_refused_in_log", refusalLogged ? 1 : 0)
        .put("run_output_failed", runOutputFailed ? 1 : 0).put("run_left_metrics_json", runLeftMetrics ? 1 : 0)
        .put("index_status", indexStatus).put("read_status", readStatus)
        .put("duration_ms", (System.nanoTime() - started) / 1_000_000).report();

    assertThat(indexStatus).isEqualTo(200);
    assertThat(listed).as("only the complete result is indexed").isEqualTo(1);
    assertThat(refusalLogged).as("the log names the cut file and why: %s", log).isTrue();
    assertThat(runOutputFailed).isTrue();
    assertThat(runLeftMetrics).as("svc run leaves no half-written metrics.json").isFalse();
    assertThat(readStatus).isEqualTo(200);
  }

  @Test
  @Timeout(120)
  void writesGet507WhileTheHomeIsFullAndSucceedOnceSpaceIsFreed() throws Exception {
    long started = System.nanoTime();
    Path home = dir.resolve("home");
    Path db = home.resolve("svc.db");
    int accepted = 0;
    int refused = 0;
    int refusedClearly = 0;
    int readsOk = 0;
    int beatsOk = 0;
    int retried = 0;
    long uptime = 0;
    long beatStored;
    long stored;
    String integrity;
    try (Tmpfs fs = Tmpfs.mount(home, "16m")) {
      try (TestServer server = TestServer.start(home, new TestServer.Options().insecure()
          .resultsDir(dir.resolve("results")))) {
        String agentId = SqliteLockFaultTest.register(server, "full-agent");
        assertThat(server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject().put("status", "idle")
            .put("uptime_s", 1)).statusCode()).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
          assertThat(SqliteLockFaultTest.create(server, "full-before-" + i).statusCode()).isEqualTo(201);
          accepted++;
        }
        // an empty WAL: the next write has to grow it, on a disk with no room
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
          s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        fs.fill();

        int during = 3;
        for (int i = 0; i < during; i++) {
          HttpResponse<Buffer> w = SqliteLockFaultTest.create(server, "full-during-" + i);
          if (w.statusCode() == 201) {
            accepted++;
          } else if (w.statusCode() == 507) {
            refused++;
            if (w.getHeader("Retry-After") != null && w.bodyAsJsonObject().getString("error").contains("disk is full")) {
              refusedClearly++;
            }
          }
          if (server.get("/api/v1/agents").statusCode() == 200) {
            readsOk++;
          }
          uptime = 100 + i;
          if (server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject().put("status", "idle")
              .put("uptime_s", uptime)).statusCode() == 200) {
            beatsOk++;
          }
        }

        fs.freeAll();
        for (int i = 0; i < during; i++) {
          if (SqliteLockFaultTest.create(server, "full-during-" + i).statusCode() == 201) {
            accepted++;
            retried++;
          }
        }
        for (int i = 0; i < 2; i++) {
          if (SqliteLockFaultTest.create(server, "full-after-" + i).statusCode() == 201) {
            accepted++;
          }
        }
        beatStored = SqliteLockFaultTest.awaitValue(db, "SELECT uptime_s FROM agents WHERE id = '" + agentId + "'",
            uptime, 30_000);
        stored = SqliteLockFaultTest.count(db, "SELECT count(*) FROM agents WHERE name LIKE 'full-%'"
            + " AND name <> 'full-agent' AND deleted_at IS NULL");
        integrity = SqliteLockFaultTest.integrity(db);
      }
    }
    FaultCounts.of("DiskFullFaultTest: server home (svc.db) on a full tmpfs, then space freed")
        .put("writes_on_full_disk", 3).put("answered_507_retry_after", refusedClearly).put("reads_ok", readsOk)
        .put("heartbeats_ok", beatsOk).put("retried_ok", retried).put("accepted", accepted).put("stored", stored)
        .put("lost", Math.max(0, accepted - stored)).put("duplicated", Math.max(0, stored - accepted))
        .put("integrity_check", integrity).put("duration_ms", (System.nanoTime() - started) / 1_000_000).report();

    assertThat(refused).as("writes on the full disk are refused").isEqualTo(3);
    assertThat(refusedClearly).isEqualTo(3);
    assertThat(readsOk).isEqualTo(3);
    assertThat(beatsOk).isEqualTo(3);
    assertThat(retried).isEqualTo(3);
    assertThat(stored).isEqualTo(accepted).isEqualTo(8);
    assertThat(beatStored).isEqualTo(uptime);
    assertThat(integrity).isEqualTo("ok");
  }

  /** A metrics document of some 64 KB: more than the room left, so its write is cut short. */
  private static JsonObject bigDocument(String model) {
    JsonArray padding = new JsonArray();
    for (int i = 0; i < 2_000; i++) {
      padding.add("sample-" + i + "-0123456789abcdef");
    }
    return MetricsFiles.current(model, "2026-11-21T10:00:00Z").put("samples", padding);
  }

  @FunctionalInterface
  private interface Io {
    void run() throws IOException;
  }

  private static boolean failsForLackOfSpace(Io write) {
    try {
      write.run();
      return false;
    } catch (IOException e) {
      return String.valueOf(e.getMessage()).contains("No space left on device");
    }
  }
}
