package dev.svc.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.events.EventAddresses;
import dev.svc.server.TestServer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every state change is stored with an increasing id before it is published on the event bus. */
class EventLogTest {

  @TempDir
  Path home;

  @Test
  void eventsAreNumberedStoredAndPublished() throws Exception {
    List<JsonObject> published = new CopyOnWriteArrayList<>();
    String testId;
    TestServer.Options options = new TestServer.Options().insecure();
    try (TestServer server = TestServer.start(home, databaseUrl() == null ? options : options.dbUrl(databaseUrl()))) {
      server.vertx().eventBus().<JsonObject>consumer(EventAddresses.ALL, m -> published.add(m.body())).completion().await();
      String agentId = server.post("/api/v1/agents/register", new JsonObject().put("name", "n1").put("hostname", "n1"))
          .bodyAsJsonObject().getString("agent_id");
      testId = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId)
          .put("model_path", "/models/llama").put("engine_name", "vllm")).bodyAsJsonObject().getString("id");
      assertThat(server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject()).statusCode()).isEqualTo(200);
      assertThat(server.post("/api/v1/quicktest/" + testId + "/logs", new JsonObject().put("line", "hello"))
          .bodyAsJsonObject()).isEqualTo(new JsonObject().put("ok", true).put("stored", 1));
      assertThat(server.post("/api/v1/quicktest/" + testId + "/cancel", new JsonObject()).statusCode()).isEqualTo(200);
    }
    List<String> stored = new ArrayList<>();
    long lastId = 0;
    try (Connection c = DriverManager.getConnection(databaseUrl() != null ? databaseUrl() : "jdbc:sqlite:" + home.resolve("svc.db"));
         ResultSet rs = c.createStatement().executeQuery("SELECT id, source_id, type, data FROM events ORDER BY id")) {
      while (rs.next()) {
        assertThat(rs.getLong("id")).isGreaterThan(lastId);
        lastId = rs.getLong("id");
        if (testId.equals(rs.getString("source_id"))) {
          stored.add(rs.getString("type") + ":" + new JsonObject(rs.getString("data")).getString("status",
              new JsonObject(rs.getString("data")).getString("line")));
        }
      }
    }
    assertThat(stored).containsExactly("status:queued", "status:dispatched", "log:hello", "status:failed");
    assertThat(published).extracting(e -> e.getString("source_id") + "/" + e.getString("type"))
        .contains(testId + "/status", testId + "/log");
    assertThat(published).extracting(e -> e.getLong("id")).isSorted();
  }

  /** The server's database: null for the default, SQLite under the test's home. */
  String databaseUrl() {
    return null;
  }
}
