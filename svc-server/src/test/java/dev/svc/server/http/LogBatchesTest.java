package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Log lines of a quick test: each batch is stored exactly once whatever order its retries come in,
 * nothing is taken once the test has ended (so its stream ends for good), and a line is stored
 * together with its event or not at all.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogBatchesTest {

  @RegisterExtension
  final TestServers servers = new TestServers(o -> database(o.insecure()));

  @Test
  void aBatchOlderThanOneStoredIsStoredAndARetryIsSaidToBeOne() throws Exception {
    TestServer server = servers.start();
    String testId = runningTest(server);
    assertThat(postBatch(server, testId, 2, "c", "d").statusCode()).isEqualTo(200);
    // batch 1 was sent first, timed out, and its retry comes after batch 2: it is stored, not dropped
    assertThat(postBatch(server, testId, 1, "a", "b").statusCode()).isEqualTo(200);
    assertThat(lines(server, testId)).containsExactly("c", "d", "a", "b");
    // a retry of a batch stored before stores nothing and says so
    assertThat(postBatch(server, testId, 1, "a", "b").bodyAsJsonObject())
        .isEqualTo(new JsonObject().put("ok", true).put("duplicate", true));
    assertThat(postBatch(server, testId, 2, "c", "d").bodyAsJsonObject().getBoolean("duplicate")).isTrue();
    assertThat(postBatch(server, testId, 3, "e").bodyAsJsonObject())
        .isEqualTo(new JsonObject().put("ok", true).put("stored", 1));
    assertThat(lines(server, testId)).containsExactly("c", "d", "a", "b", "e");
    assertThat(count("SELECT COUNT(*) FROM events WHERE type = 'log' AND source_id = '" + testId + "'")).isEqualTo(5);
  }

  @Test
  void noLineIsTakenOnceTheTestEndedAndItsStreamStaysEnded() {
    TestServer server = servers.start();
    String testId = runningTest(server);
    postBatch(server, testId, 1, "working");
    assertThat(server.post("/api/v1/quicktest/" + testId + "/status", new JsonObject().put("status", "completed"))
        .statusCode()).isEqualTo(200);

    HttpResponse<Buffer> late = postBatch(server, testId, 2, "after the end");
    assertThat(late.statusCode()).isEqualTo(409);
    assertThat(late.bodyAsJsonObject().getString("error")).contains("completed");
    HttpResponse<Buffer> single = server.post("/api/v1/quicktest/" + testId + "/logs",
        new JsonObject().put("line", "old-style line after the end"));
    assertThat(single.statusCode()).isEqualTo(409);
    assertThat(lines(server, testId)).containsExactly("working");

    // a client resuming after the terminal status is told the stream is over
    HttpClient http = server.vertx().createHttpClient(
        new HttpClientOptions().setDefaultHost("localhost").setDefaultPort(server.port()), new PoolOptions());
    try {
      SseTestClient all = SseTestClient.open(http, "/api/v1/events/stream/" + testId);
      assertThat(all.awaitEnd()).isEqualTo("end");
      SseTestClient.Frame terminal = all.frames().get(all.frames().size() - 1);
      assertThat(terminal.json().getString("status")).isEqualTo("completed");
      SseTestClient after = SseTestClient.open(http, "/api/v1/events/stream/" + testId,
          new SseTestClient.Options().header("Last-Event-ID", Long.toString(terminal.id())));
      assertThat(after.status()).isEqualTo(204);
      after.awaitEnd();
    } finally {
      http.close().await();
    }
  }

  @Test
  void aFaultBetweenStoringALineAndStoringItsEventStoresNeither() throws Exception {
    TestServer server = servers.start();
    String testId = runningTest(server);
    // the database refuses the event of one line, as a crash between the two writes would lose it
    refuseEventsContaining("poison");
    HttpResponse<Buffer> failed = postBatch(server, testId, 1, "fine", "poison");
    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(failed.bodyAsJsonObject().getString("error")).isNotBlank();
    assertThat(lines(server, testId)).isEmpty();
    assertThat(count("SELECT COUNT(*) FROM events WHERE type = 'log'")).isZero();

    execute(dropRefusal());
    assertThat(postBatch(server, testId, 1, "fine", "poison").bodyAsJsonObject().getInteger("stored")).isEqualTo(2);
    assertThat(lines(server, testId)).containsExactly("fine", "poison");
    assertThat(count("SELECT COUNT(*) FROM events WHERE type = 'log' AND source_id = '" + testId + "'")).isEqualTo(2);
  }

  // --- the database: SQLite under the test's home here; see LogBatchesOnPostgresTest ---

  TestServer.Options database(TestServer.Options options) {
    return options;
  }

  String jdbcUrl() {
    return "jdbc:sqlite:" + servers.home().resolve("svc.db");
  }

  /** Makes the database refuse an event whose data holds {@code text}, as a fault between two writes would. */
  void refuseEventsContaining(String text) throws SQLException {
    execute("CREATE TRIGGER refuse_poison BEFORE INSERT ON events WHEN NEW.data LIKE '%" + text + "%'"
        + " BEGIN SELECT RAISE(ABORT, 'injected fault'); END");
  }

  String dropRefusal() {
    return "DROP TRIGGER refuse_poison";
  }

  // --- helpers ---

  /** A test dispatched to a fresh agent and reported running. */
  private static String runningTest(TestServer server) {
    String agent = server.post("/api/v1/agents/register", new JsonObject().put("name", "logger").put("hostname", "h"))
        .bodyAsJsonObject().getString("agent_id");
    String testId = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agent)
        .put("model_path", "/models/a").put("engine_name", "vllm")).bodyAsJsonObject().getString("id");
    assertThat(server.post("/api/v1/agents/" + agent + "/heartbeat", new JsonObject()).bodyAsJsonObject()
        .getJsonArray("commands")).hasSize(1);
    assertThat(server.post("/api/v1/quicktest/" + testId + "/status", new JsonObject().put("status", "running"))
        .statusCode()).isEqualTo(200);
    return testId;
  }

  private static HttpResponse<Buffer> postBatch(TestServer server, String testId, long seq, String... lines) {
    return server.post("/api/v1/quicktest/" + testId + "/logs",
        new JsonObject().put("lines", new JsonArray(List.of((Object[]) lines))).put("seq", seq));
  }

  private static List<String> lines(TestServer server, String testId) {
    return server.get("/api/v1/quicktest/" + testId + "/logs").bodyAsJsonObject().getJsonArray("lines").stream()
        .map(l -> ((JsonObject) l).getString("line")).toList();
  }

  private long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl());
         ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl())) {
      c.createStatement().executeUpdate(sql);
    }
  }
}
