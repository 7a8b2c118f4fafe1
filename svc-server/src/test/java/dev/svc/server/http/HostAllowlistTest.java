package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.OnEventLoop;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.HostAndPort;
import java.net.InetAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * DNS rebinding: a page at http://rebind.attacker.example:PORT whose name the attacker re-points
 * at 127.0.0.1 is same-origin with its own name, so the browser lets it read the answers and the
 * CSRF token a GET of /api/v1/session hands out. The server answers only to its own names (and IP
 * literals, which no attacker can rebind): under any other Host a request gets 421, unless it
 * carries a token the server knows, which such a page cannot have.
 */
class HostAllowlistTest {

  private static final String FOREIGN = "rebind.attacker.example";

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.insecure());

  private HttpClient http;

  /** What came back. */
  private record Reply(int status, String contentType, String body) {
    JsonObject json() {
      return new JsonObject(body);
    }
  }

  @AfterEach
  void closeClient() {
    if (http != null) {
      http.close().await();
    }
  }

  /** Sends to 127.0.0.1 with {@code host} in the Host header, as a browser on a rebound name does. */
  private Reply send(TestServer server, HttpMethod method, String path, String host, String bearer, JsonObject body) {
    if (http == null) {
      http = server.vertx().createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1")
          .setDefaultPort(server.port()).setConnectTimeout(5000));
    }
    RequestOptions options = new RequestOptions().setMethod(method).setURI(path).setIdleTimeout(15_000);
    if (bearer != null) {
      options.putHeader("Authorization", "Bearer " + bearer);
    }
    if (body != null) {
      options.putHeader("Content-Type", "application/json");
    }
    HttpClient client = http;
    return OnEventLoop.call(server.vertx(), () -> client.request(options).compose(request -> {
      request.authority(HostAndPort.create(host, server.port()));
      return (body == null ? request.send() : request.send(body.toBuffer()))
          .compose(r -> r.body().map(b -> new Reply(r.statusCode(), r.getHeader("Content-Type"), b.toString())));
    })).await();
  }

  private Reply get(TestServer server, String path, String host) {
    return send(server, HttpMethod.GET, path, host, null, null);
  }

  @Test
  void aRebindingPageGetsNothingFromAnOpenServer() {
    TestServer server = servers.start();
    for (String path : new String[] {"/api/v1/agents", "/api/v1/session", "/api/v1/results", "/api/v1/health"}) {
      Reply reply = get(server, path, FOREIGN);
      assertThat(reply.status()).as(path).isEqualTo(421);
      assertThat(reply.contentType()).startsWith("application/json");
      assertThat(reply.json().getString("error")).contains(FOREIGN).contains("--san");
    }
    Reply create = send(server, HttpMethod.POST, "/api/v1/agents/test", FOREIGN, null,
        new JsonObject().put("name", "rebound"));
    assertThat(create.status()).isEqualTo(421);
    Reply page = get(server, "/agents", FOREIGN);
    assertThat(page.status()).isEqualTo(421);
    assertThat(page.contentType()).startsWith("text/plain");
    // a made-up bearer token does not open the door either (an open server would take it as "any client")
    assertThat(send(server, HttpMethod.GET, "/api/v1/agents", FOREIGN, "made-up", null).status()).isEqualTo(421);
    assertThat(new io.vertx.core.json.JsonArray(get(server, "/api/v1/agents", "localhost").body()))
        .as("nothing was created").isEmpty();
  }

  @Test
  void theServersOwnNamesAndIpLiteralsAreServed() throws Exception {
    TestServer server = servers.start(new TestServer.Options().sans("svc.lab.example"));
    String machine = InetAddress.getLocalHost().getHostName();
    for (String host : new String[] {"localhost", "LOCALHOST.", "127.0.0.1", "[::1]", "10.1.2.3", machine,
        "svc.lab.example"}) {
      assertThat(get(server, "/api/v1/agents", host).status()).as(host).isEqualTo(200);
      assertThat(get(server, "/agents", host).status()).as(host + " page").isEqualTo(200);
    }
    assertThat(get(server, "/api/v1/agents", "other.lab.example").status()).isEqualTo(421);
    assertThat(get(server, "/api/v1/agents", "127.0.0.1.attacker.example").status()).isEqualTo(421);
  }

  @Test
  void aClientHoldingATokenTheServerKnowsIsServedUnderAnyName() {
    TestServer server = servers.start();
    String agentToken = "c".repeat(64);
    JsonObject registration = new JsonObject().put("name", "far-node").put("hostname", "far-node.lab");
    assertThat(server.post("/api/v1/agents/register", agentToken, registration).statusCode()).isEqualTo(201);

    Reply heartbeat = send(server, HttpMethod.POST, "/api/v1/agents/far-node/heartbeat", "gpu.lab.example", agentToken,
        new JsonObject().put("status", "idle").put("gpu_utilization_pct", 12.5));
    assertThat(heartbeat.status()).as(heartbeat.body()).isEqualTo(200);
    assertThat(heartbeat.json().getBoolean("ack")).isTrue();
    Reply unknown = send(server, HttpMethod.GET, "/api/v1/agents", "gpu.lab.example", "d".repeat(64), null);
    assertThat(unknown.status()).as("a token no agent holds").isEqualTo(421);
  }

  @Test
  void theGlobalTokenIsServedUnderAnyName() {
    TestServer server = servers.start(new TestServer.Options().authToken("host-test-global"));
    Reply agents = send(server, HttpMethod.GET, "/api/v1/agents", FOREIGN, "host-test-global", null);
    assertThat(agents.status()).isEqualTo(200);
    assertThat(get(server, "/api/v1/agents", FOREIGN).status()).isEqualTo(421);
  }

  @Test
  void theLegacyViewerAnswersOnlyToItsNamesToo() {
    TestServer server = servers.start(new TestServer.Options().legacy());
    assertThat(get(server, "/", FOREIGN).status()).isEqualTo(421);
    assertThat(get(server, "/", "localhost").status()).isEqualTo(200);
  }
}
