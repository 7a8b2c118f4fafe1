package dev.svc.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.AgentBus;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.core.OnEventLoop;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's own API over real HTTPS: status, the SSE log stream (replay, live lines, its end,
 * the token) and cancel. The engine's side of the bus is played by the test.
 */
class LogServerVerticleTest {

  static final String TOKEN = "a".repeat(64);

  @TempDir
  Path dir;

  Vertx vertx;
  LogServerVerticle server;
  HttpClientAgent client;
  AgentHome home;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    Files.createDirectories(dir.resolve("models/tiny"));
    Files.write(dir.resolve("models/tiny/model.gguf"), new byte[4096]);
    AgentConfig config = new AgentConfig("https://127.0.0.1:1", TOKEN, "local-agent", 0, null, dir.resolve("models").toString(),
        null, null, null, new AgentConfig.Tls("unused", "unused", "unused"), null, null);
    home = new AgentHome(dir.resolve("home"));
    server = new LogServerVerticle(home, config);
    await(vertx.deployVerticle(server));
    client = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setDefaultHost("127.0.0.1")
        .setDefaultPort(server.actualPort()).setTrustOptions(new PemTrustOptions()
            .addCertPath(home.apiCa().toString())));
  }

  @AfterEach
  void stop() throws Exception {
    await(vertx.close());
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private record Reply(int status, String body) {
    JsonObject json() {
      return new JsonObject(body);
    }
  }

  private Future<Reply> call(HttpMethod method, String path, String token) {
    RequestOptions options = new RequestOptions().setMethod(method).setURI(path);
    if (token != null) {
      options.putHeader("Authorization", "Bearer " + token);
    }
    return OnEventLoop.call(vertx, () -> client.request(options).compose(req -> req.send()).compose(resp -> resp.body()
        .map(body -> new Reply(resp.statusCode(), body.toString()))));
  }

  private void log(String command, String test, String line) {
    vertx.eventBus().publish(AgentBus.LOG, new JsonObject().put("command_id", command).put("test_id", test).put("line", line));
  }

  @Test
  void statusNeedsNoTokenFromLoopbackAndCountsTheModels() throws Exception {
    Reply reply = await(call(HttpMethod.GET, "/api/status", null));
    assertThat(reply.status()).isEqualTo(200);
    JsonObject status = reply.json();
    assertThat(status.getString("name")).isEqualTo("local-agent");
    assertThat(status.getBoolean("running")).isTrue();
    // no engine answers: nothing runs
    assertThat(status.getBoolean("benchmark_active")).isFalse();
    assertThat(status.getString("current_test")).isEmpty();
    assertThat(status.getJsonObject("storage").getInteger("model_count")).isEqualTo(1);
    assertThat(status.getJsonObject("storage").getDouble("free_gb")).isPositive();
  }

  @Test
  void theLogStreamReplaysFollowsAndEndsWithItsTest() throws Exception {
    log("cmd1", "test1", "first");
    log("cmd1", "test1", "second");
    log("cmd2", "test2", "another command");
    CompletableFuture<String> whole = new CompletableFuture<>();
    StringBuilder received = new StringBuilder();
    boolean[] live = {false};
    client.request(new RequestOptions().setURI("/api/logs/cmd1").putHeader("Authorization", "Bearer " + TOKEN))
        .compose(req -> req.send()).onSuccess(resp -> {
          assertThat(resp.statusCode()).isEqualTo(200);
          assertThat(resp.getHeader("Content-Type")).startsWith("text/event-stream");
          resp.handler(chunk -> {
            received.append(chunk);
            if (received.toString().contains("second") && !live[0]) {
              live[0] = true;
              // replayed: now the live part and the end
              log("cmd1", "test1", "third");
              vertx.eventBus().publish(AgentBus.TEST_ENDED, new JsonObject().put("test_id", "test1"));
            }
          });
          resp.endHandler(v -> whole.complete(received.toString()));
        }).onFailure(whole::completeExceptionally);
    String stream = whole.get(30, TimeUnit.SECONDS);
    assertThat(stream).contains("event: log\ndata: {\"command_id\":\"cmd1\",\"line\":\"first\"}\n\n");
    assertThat(stream.indexOf("first")).isLessThan(stream.indexOf("second"));
    assertThat(stream.indexOf("second")).isLessThan(stream.indexOf("third"));
    assertThat(stream).doesNotContain("another command");
    assertThat(stream.split("third", -1)).hasSize(2);

    // after its end the stream replays and ends at once
    Reply replay = await(call(HttpMethod.GET, "/api/logs/cmd1", TOKEN));
    assertThat(replay.body()).contains("first").contains("third");
  }

  @Test
  void aCommandThisAgentNeverHadIs404AndOneItFinishedBeforeARestartEndsAtOnce() throws Exception {
    Reply unknown = await(call(HttpMethod.GET, "/api/logs/never-seen", TOKEN));
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.json().getString("error")).contains("never-seen");
    assertThat(await(call(HttpMethod.GET, "/api/logs/..%2Fagent", TOKEN)).status()).isEqualTo(404);

    // the engine's record of a finished command, whose lines a restart took from the buffer
    Files.createDirectories(home.jobs());
    Files.writeString(home.jobs().resolve("cmd-done.json"), new JsonObject().put("command_id", "cmd-done")
        .put("state", "done").encode());
    Reply over = await(call(HttpMethod.GET, "/api/logs/cmd-done", TOKEN));
    assertThat(over.status()).isEqualTo(200);
    assertThat(over.body()).doesNotContain("event: log");
  }

  @Test
  void theLogStreamAndCancelNeedTheAgentsToken() throws Exception {
    Reply none = await(call(HttpMethod.GET, "/api/logs/cmd1", null));
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.json().getString("error")).contains("Bearer");
    Reply wrong = await(call(HttpMethod.GET, "/api/logs/cmd1", "b".repeat(64)));
    assertThat(wrong.status()).isEqualTo(403);
    assertThat(await(call(HttpMethod.POST, "/api/tests/test1/cancel", null)).status()).isEqualTo(401);
    assertThat(await(call(HttpMethod.POST, "/api/tests/test1/cancel", "b".repeat(64))).status()).isEqualTo(403);
  }

  @Test
  void cancelStopsTheRunningTestOnlyAndSaysWhyOtherwise() throws Exception {
    JsonObject[] cancelled = {null};
    await(vertx.eventBus().<JsonObject>consumer(AgentBus.ENGINE_STATE, m -> m.reply(new JsonObject().put("busy", true)
        .put("test_id", "test1").put("command_id", "cmd1").put("status", "running"))).completion());
    await(vertx.eventBus().<JsonObject>consumer(AgentBus.ENGINE_CANCEL, m -> {
      cancelled[0] = m.body();
      m.reply(new JsonObject().put("cancelled", true));
    }).completion());

    Reply other = await(call(HttpMethod.POST, "/api/tests/test9/cancel", TOKEN));
    assertThat(other.status()).isEqualTo(404);
    assertThat(other.json().getString("error")).contains("test9");
    assertThat(cancelled[0]).isNull();

    Reply ok = await(call(HttpMethod.POST, "/api/tests/test1/cancel", TOKEN));
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.json().getBoolean("cancelled")).isTrue();
    assertThat(cancelled[0].getString("test_id")).isEqualTo("test1");

    Reply status = await(call(HttpMethod.GET, "/api/status", null));
    assertThat(status.json().getBoolean("benchmark_active")).isTrue();
    assertThat(status.json().getString("current_test")).isEqualTo("test1");
  }

  @Test
  void unknownApiPathsAnswerJson() throws Exception {
    Reply reply = await(call(HttpMethod.GET, "/api/nothing", null));
    assertThat(reply.status()).isEqualTo(404);
    assertThat(reply.json().getString("error")).isNotBlank();
    assertThat(Buffer.buffer(reply.body()).length()).isPositive();
  }
}
