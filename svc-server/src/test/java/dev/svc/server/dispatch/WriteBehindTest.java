package dev.svc.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A heartbeat that changes nothing is kept in memory and written behind: the API shows it at once,
 * the database has it within a batch, and a server that stops writes what it still holds. A change
 * of status is written before the heartbeat is answered.
 */
class WriteBehindTest {

  @TempDir
  Path home;

  private static JsonObject beat(String status, double uptime) {
    return new JsonObject().put("status", status).put("uptime_s", uptime).put("gpu_utilization_pct", 3.0);
  }

  @Test
  void aQuietHeartbeatIsShownAtOnceWrittenWithinABatchAndWrittenWhenTheServerStops() throws Exception {
    String agent;
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure())) {
      agent = server.post("/api/v1/agents/register", new JsonObject().put("name", "quiet").put("hostname", "q"))
          .bodyAsJsonObject().getString("agent_id");
      assertThat(server.post("/api/v1/agents/" + agent + "/heartbeat", beat("idle", 10)).statusCode()).isEqualTo(200);
      assertThat(text("SELECT status FROM agents WHERE id = '" + agent + "'")).as("a status change is written at once")
          .isEqualTo("idle");

      server.post("/api/v1/agents/" + agent + "/heartbeat", beat("idle", 500));
      assertThat(server.get("/api/v1/agents/" + agent).bodyAsJsonObject().getDouble("uptime_s")).isEqualTo(500.0);
      awaitStored(agent, "500.0", Duration.ofSeconds(30));

      server.post("/api/v1/agents/" + agent + "/heartbeat", beat("idle", 600));
    }
    assertThat(text("SELECT uptime_s FROM agents WHERE id = '" + agent + "'")).as("written when the server stopped")
        .isEqualTo("600.0");
  }

  private void awaitStored(String agent, String uptime, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!uptime.equals(text("SELECT uptime_s FROM agents WHERE id = '" + agent + "'"))) {
      assertThat(System.nanoTime()).as("uptime " + uptime + " written within " + timeout).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  private String text(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + home.resolve("svc.db"));
         ResultSet rs = c.createStatement().executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
