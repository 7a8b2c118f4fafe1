package dev.svc.server.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two servers share one PostgreSQL (what several nodes of a deployment would do) and PostgreSQL stops
 * like a crash while they serve. Every request that needs the database is answered 503 with
 * Retry-After within a bound, never a 500 or a hang; PostgreSQL starts again and both servers take
 * writes again on their own, without a restart; every write accepted before the outage is there once,
 * and the writes refused during it, retried, are there once too.
 */
class PostgresOutageFaultTest {

  /** A refused connection is answered at once; a dropped one within a few seconds on a loaded machine. */
  static final long ANSWER_BOUND_MS = 10_000;
  /** How long the servers may take to use the database again once PostgreSQL is back. */
  static final long RECOVERY_BOUND_MS = 30_000;
  private static final int PER_SERVER = 3;

  @Test
  @Timeout(150)
  void bothServersAnswer503WhilePostgresIsDownAndRecoverWithoutARestart() throws Exception {
    long started = System.nanoTime();
    Path homes = Files.createTempDirectory("svc-pg-homes-");
    List<TestServer> servers = new ArrayList<>();
    try (ThrowawayPostgres pg = ThrowawayPostgres.start()) {
      for (String node : List.of("a", "b")) {
        servers.add(TestServer.start(homes.resolve(node), new TestServer.Options().insecure().dbUrl(pg.jdbcUrl())
            .resultsDir(homes.resolve(node + "-results"))));
      }
      int accepted = 0;
      for (int s = 0; s < servers.size(); s++) {
        for (int i = 0; i < PER_SERVER; i++) {
          HttpResponse<Buffer> created = create(servers.get(s), "pg-before-" + s + "-" + i);
          assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(201);
          accepted++;
        }
      }

      pg.crash();
      int refused = 0;
      int refusedWithRetryAfter = 0;
      int other = 0;
      long slowestMs = 0;
      List<String> statuses = new ArrayList<>();
      for (int s = 0; s < servers.size(); s++) {
        for (int i = 0; i < PER_SERVER; i++) {
          for (boolean write : new boolean[] {true, false}) {
            long t0 = System.nanoTime();
            HttpResponse<Buffer> r = write ? create(servers.get(s), "pg-during-" + s + "-" + i)
                : servers.get(s).get("/api/v1/agents");
            slowestMs = Math.max(slowestMs, (System.nanoTime() - t0) / 1_000_000);
            statuses.add(r.statusCode() + " " + r.bodyAsString());
            if (r.statusCode() == 503) {
              refused++;
              if (r.getHeader("Retry-After") != null && r.bodyAsJsonObject().getString("error").contains("database")) {
                refusedWithRetryAfter++;
              }
            } else {
              other++;
            }
          }
        }
      }

      pg.startAgain();
      long back = System.nanoTime();
      // each server takes writes again on its own: the clients retry what was refused until it is taken
      long recoveryMs = 0;
      int retried = 0;
      for (int s = 0; s < servers.size(); s++) {
        for (int i = 0; i < PER_SERVER; i++) {
          HttpResponse<Buffer> r = retryUntilTaken(servers.get(s), "pg-during-" + s + "-" + i, back);
          recoveryMs = Math.max(recoveryMs, (System.nanoTime() - back) / 1_000_000);
          if (r.statusCode() == 201) {
            accepted++;
            retried++;
          }
        }
      }
      long stored;
      long distinct;
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl()); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*), count(DISTINCT name) FROM agents WHERE name LIKE 'pg-%'"
              + " AND deleted_at IS NULL")) {
        rs.next();
        stored = rs.getLong(1);
        distinct = rs.getLong(2);
      }
      int requests = servers.size() * PER_SERVER * 2;
      FaultCounts.of("PostgresOutageFaultTest: PostgreSQL stopped -m immediate under two servers, started again")
          .put("requests_during_outage", requests).put("answered_503_retry_after", refusedWithRetryAfter)
          .put("answered_other", other).put("slowest_answer_ms", slowestMs).put("retried_ok", retried)
          .put("recovery_ms", recoveryMs).put("accepted", accepted).put("stored", stored)
          .put("lost", Math.max(0, accepted - stored)).put("duplicated", stored - distinct)
          .put("duration_ms", (System.nanoTime() - started) / 1_000_000).report();

      assertThat(refused).as("answers during the outage: %s", statuses).isEqualTo(requests);
      assertThat(refusedWithRetryAfter).isEqualTo(requests);
      assertThat(slowestMs).isLessThan(ANSWER_BOUND_MS);
      assertThat(retried).isEqualTo(servers.size() * PER_SERVER);
      assertThat(stored).isEqualTo(accepted).isEqualTo(distinct).isEqualTo(2L * servers.size() * PER_SERVER);
    } finally {
      for (TestServer server : servers) {
        server.close();
      }
      try (Stream<Path> paths = Files.walk(homes)) {
        for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static HttpResponse<Buffer> create(TestServer server, String name) {
    return server.post("/api/v1/agents", new JsonObject().put("name", name));
  }

  /** What a client does with a 503: waits as told (capped, the test has a deadline) and sends it again. */
  private static HttpResponse<Buffer> retryUntilTaken(TestServer server, String name, long since) throws Exception {
    HttpResponse<Buffer> r = create(server, name);
    while (r.statusCode() == 503 && System.nanoTime() - since < RECOVERY_BOUND_MS * 1_000_000) {
      Thread.sleep(Math.min(500, Long.parseLong(r.getHeader("Retry-After")) * 1000)); // the client's back-off
      r = create(server, name);
    }
    assertThat(r.statusCode()).as("%s after PostgreSQL came back: %s", name, r.bodyAsString()).isEqualTo(201);
    return r;
  }
}
