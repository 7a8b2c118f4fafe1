package dev.svc.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Work is durable the moment the API answers: a second connection to the database file (what a
 * restart after a crash at this instant would find) sees the queued test, every log line, the
 * final status and the result, while the server is still running.
 */
class DurabilityTest {

  @TempDir
  Path home;

  @Test
  void whatTheApiAcknowledgedIsOnDiskWhileTheServerRuns() throws Exception {
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure())) {
      String agentId = server.post("/api/v1/agents/register", new JsonObject().put("name", "n1").put("hostname", "n1"))
          .bodyAsJsonObject().getString("agent_id");
      JsonObject queued = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId)
          .put("model_path", "/models/a").put("engine_name", "vllm")).bodyAsJsonObject();
      String testId = queued.getString("id");
      String queuedAgain = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId)
          .put("model_path", "/models/b").put("engine_name", "vllm")).bodyAsJsonObject().getString("id");
      assertThat(count("SELECT COUNT(*) FROM quick_tests WHERE status = 'queued'")).isEqualTo(2);

      server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject().put("status", "idle"));
      server.post("/api/v1/quicktest/" + testId + "/status", new JsonObject().put("status", "running"));
      server.post("/api/v1/quicktest/" + testId + "/logs", new JsonObject()
          .put("lines", new JsonArray().add("one").add("two")).put("seq", 1));
      server.post("/api/v1/quicktest/" + testId + "/logs", new JsonObject().put("line", "three"));
      server.post("/api/v1/agents/" + agentId + "/results", new JsonObject().put("command_id", queued.getString("command_id"))
          .put("test_id", testId).put("status", "completed")
          .put("result_data", new JsonObject().put("engine", "vllm").put("model", "/models/a").put("passed", true)));

      assertThat(text("SELECT status FROM quick_tests WHERE id = '" + testId + "'")).isEqualTo("completed");
      assertThat(text("SELECT status FROM quick_tests WHERE id = '" + queuedAgain + "'")).isEqualTo("queued");
      assertThat(count("SELECT COUNT(*) FROM events WHERE type = 'log' AND source_id = '" + testId + "'")).isEqualTo(3);
      assertThat(count("SELECT COUNT(*) FROM results WHERE test_id = '" + testId + "'")).isEqualTo(1);
      assertThat(text("SELECT result_id FROM quick_tests WHERE id = '" + testId + "'")).isNotNull();
      assertThat(count("SELECT COUNT(*) FROM events WHERE source_id = '" + testId + "'")).isEqualTo(8);
      assertThat(text("SELECT last_heartbeat_at FROM agents WHERE id = '" + agentId + "'")).isNotNull();
    }
  }

  private long count(String sql) throws SQLException {
    return Long.parseLong(text(sql));
  }

  private String text(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + home.resolve("svc.db"));
         ResultSet rs = c.createStatement().executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
