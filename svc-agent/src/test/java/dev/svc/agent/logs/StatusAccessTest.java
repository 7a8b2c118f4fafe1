package dev.svc.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.core.OnEventLoop;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may read {@code GET /api/status}: loopback callers, and others with the agent's token. A
 * caller from this machine's own non-loopback address stands in for a remote one.
 */
class StatusAccessTest {

  static final String TOKEN = "c".repeat(64);

  @TempDir
  Path dir;

  Vertx vertx;
  AgentHome home;
  LogServerVerticle server;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    home = new AgentHome(dir.resolve("home"));
  }

  @AfterEach
  void stop() throws Exception {
    await(vertx.close());
  }

  private AgentConfig config(String token, String bind) {
    return new AgentConfig("https://127.0.0.1:1", token, "exposed-agent", 0, bind, dir.resolve("models").toString(),
        null, null, null, new AgentConfig.Tls("unused", "unused", "unused"), null, null);
  }

  private void deploy(AgentConfig config) throws Exception {
    server = new LogServerVerticle(home, config);
    await(vertx.deployVerticle(server));
  }

  private record Reply(int status, String body) {
    JsonObject json() {
      return new JsonObject(body);
    }
  }

  /** {@code GET /api/status} at {@code host}, as a client that trusts the API's CA but not its host names. */
  private Reply status(String host, String token) throws Exception {
    HttpClientAgent client = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setVerifyHost(false)
        .setConnectTimeout(5000).setTrustOptions(new PemTrustOptions().addCertPath(home.apiCa().toString())));
    RequestOptions options = new RequestOptions().setHost(host).setPort(server.actualPort()).setURI("/api/status");
    if (token != null) {
      options.putHeader("Authorization", "Bearer " + token);
    }
    try {
      return await(OnEventLoop.call(vertx, () -> client.request(options).compose(req -> req.send())
          .compose(resp -> resp.body().map(body -> new Reply(resp.statusCode(), body.toString())))));
    } finally {
      client.close();
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void byDefaultTheApiListensOnLoopbackOnly() throws Exception {
    AgentConfig config = config(TOKEN, null);
    assertThat(config.bind()).isEqualTo("127.0.0.1");
    deploy(config);
    assertThat(status("127.0.0.1", null).status()).isEqualTo(200);
    Optional<String> external = HostAddress.nonLoopbackIpv4();
    if (external.isPresent()) {
      // nothing listens on the port at the host's other addresses, with or without a token
      assertThatThrownBy(() -> status(external.get(), TOKEN)).isInstanceOf(ExecutionException.class)
          .hasMessageContaining("onnection refused");
    }
  }

  @Test
  void aRemoteCallerGetsStatusOnlyWithTheAgentsToken() throws Exception {
    deploy(config(TOKEN, "0.0.0.0"));
    String external = HostAddress.nonLoopbackIpv4().orElse(null);
    if (external == null) {
      // no remote caller to play here: onlyLoopbackAddressesAreLocalCallers checks the predicate alone
      System.err.println("No non-loopback IPv4 address on this machine: the remote caller is not played");
    } else {
      Reply none = status(external, null);
      assertThat(none.status()).isEqualTo(401);
      assertThat(none.json().getString("error")).contains("Bearer");
      assertThat(none.body()).doesNotContain("exposed-agent");
      Reply wrong = status(external, "d".repeat(64));
      assertThat(wrong.status()).isEqualTo(403);
      assertThat(wrong.json().getString("error")).isNotBlank();
      assertThat(wrong.body()).doesNotContain("exposed-agent");
      Reply right = status(external, TOKEN);
      assertThat(right.status()).isEqualTo(200);
      assertThat(right.json().getString("name")).isEqualTo("exposed-agent");
    }
    Reply local = status("127.0.0.1", null);
    assertThat(local.status()).isEqualTo(200);
    assertThat(local.json().getString("name")).isEqualTo("exposed-agent");
  }

  @Test
  void anAgentWithoutATokenServesStatusToLocalCallersOnly() throws Exception {
    deploy(config("", "0.0.0.0"));
    Optional<String> external = HostAddress.nonLoopbackIpv4();
    if (external.isPresent()) {
      Reply remote = status(external.get(), null);
      assertThat(remote.status()).isEqualTo(403);
      assertThat(remote.json().getString("error")).contains("local");
      assertThat(remote.body()).doesNotContain("exposed-agent");
    }
    assertThat(status("127.0.0.1", null).json().getString("name")).isEqualTo("exposed-agent");
  }

  @Test
  void onlyLoopbackAddressesAreLocalCallers() {
    assertThat(LogServerVerticle.loopback("127.0.0.1")).isTrue();
    assertThat(LogServerVerticle.loopback("127.8.9.10")).isTrue();
    assertThat(LogServerVerticle.loopback("::1")).isTrue();
    assertThat(LogServerVerticle.loopback("0:0:0:0:0:0:0:1")).isTrue();
    assertThat(LogServerVerticle.loopback("::ffff:127.0.0.1")).isTrue();
    assertThat(LogServerVerticle.loopback("192.0.2.2")).isFalse();
    assertThat(LogServerVerticle.loopback("10.127.0.1")).isFalse();
    assertThat(LogServerVerticle.loopback("fd00::2")).isFalse();
    assertThat(LogServerVerticle.loopback("::ffff:192.0.2.2")).isFalse();
    assertThat(LogServerVerticle.loopback("0.0.0.0")).isFalse();
    assertThat(LogServerVerticle.loopback("::")).isFalse();
    assertThat(LogServerVerticle.loopback("localhost")).isFalse();
    assertThat(LogServerVerticle.loopback("")).isFalse();
    assertThat(LogServerVerticle.loopback(null)).isFalse();
  }
}
