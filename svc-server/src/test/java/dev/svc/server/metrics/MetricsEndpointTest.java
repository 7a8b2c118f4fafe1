package dev.svc.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of a real server (HTTPS, a global token, the Vert.x that `svc web` builds):
 * Vert.x's own series (HTTP server, event bus, the database pool, the JVM) and every svc series,
 * whose values follow what happens on the server; without the token it is refused.
 */
@Timeout(120)
class MetricsEndpointTest {

  private static final String GLOBAL = "metrics-global-token";
  /** A sample line: name, labels (may be empty), value. */
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})? (\\S+)$",
      Pattern.MULTILINE);

  @TempDir
  Path home;

  private TestServer server;

  @BeforeEach
  void start() {
    server = TestServer.start(home, new TestServer.Options().authToken(GLOBAL)
        .timings(Timings.defaults().withMetricsRefresh(200)));
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private String scrape() {
    HttpResponse<Buffer> response = server.get("/metrics", GLOBAL);
    assertThat(response.statusCode()).as("GET /metrics with the global token").isEqualTo(200);
    return response.bodyAsString();
  }

  /** Every sample of a scrape: "name{labels}" (labels as written) → value. */
  static Map<String, Double> samples(String text) {
    Map<String, Double> out = new HashMap<>();
    Matcher m = SAMPLE.matcher(text);
    while (m.find()) {
      out.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
    }
    return out;
  }

  /** The value of the one sample whose name is {@code name} and whose labels contain each of {@code labels}. */
  static Double value(String text, String name, String... labels) {
    Double found = null;
    for (Map.Entry<String, Double> e : samples(text).entrySet()) {
      String key = e.getKey();
      String sampleName = key.contains("{") ? key.substring(0, key.indexOf('{')) : key;
      boolean all = sampleName.equals(name);
      for (String label : labels) {
        all &= key.contains(label);
      }
      if (all) {
        assertThat(found).as("more than one sample of %s with %s", name, String.join(",", labels)).isNull();
        found = e.getValue();
      }
    }
    return found;
  }

  /** Scrapes until {@code done} holds (every 50 ms, at most 15 s); returns the last scrape. */
  private String scrapeUntil(Predicate<String> done) throws InterruptedException {
    long end = System.nanoTime() + 15_000_000_000L;
    String text = scrape();
    while (!done.test(text) && System.nanoTime() < end) {
      Thread.sleep(50); // polling interval; the deadline bounds the wait
      text = scrape();
    }
    return text;
  }

  @Test
  void metricsNeedTheGlobalTokenLikeTheApiMetrics() {
    HttpResponse<Buffer> none = server.get("/metrics");
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.getHeader("Content-Type")).startsWith("text/plain");
    assertThat(none.bodyAsString()).doesNotContain("svc_").doesNotContain("vertx_");
    HttpResponse<Buffer> wrong = server.get("/metrics", "not-the-token");
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(wrong.bodyAsString()).doesNotContain("svc_").doesNotContain("vertx_");

    HttpResponse<Buffer> ok = server.get("/metrics", GLOBAL);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.getHeader("Content-Type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    assertThat(ok.getHeader("Cache-Control")).isEqualTo("no-store");
    // the two refusals above are counted in both documents
    assertThat(value(ok.bodyAsString(), "svc_auth_failures_total")).isEqualTo(1.0);
    assertThat(server.get("/api/v1/metrics", GLOBAL).bodyAsString()).contains("svc_auth_failures_total 1\n");
  }

  @Test
  void vertxSeriesAndEverySvcSeriesAreServed() {
    server.get("/api/v1/agents", GLOBAL); // a request through the database pool
    // a made-up method is counted as "other", not as a series of its own
    assertThat(TestServer.send(server.client(), HttpMethod.valueOf("FROBNICATE"), "/api/v1/health", null, null)
        .statusCode()).isGreaterThanOrEqualTo(400);
    String text = scrape();
    assertThat(value(text, "vertx_http_server_requests_total", "method=\"other\"")).isEqualTo(1.0);
    assertThat(text).doesNotContain("FROBNICATE");
    // Vert.x: the HTTP server, the event bus (the heartbeat dispatcher's consumer), the database pool, the JVM
    assertThat(value(text, "vertx_http_server_requests_total", "method=\"GET\"", "code=\"200\"")).isPositive();
    assertThat(text).contains("vertx_http_server_response_time_seconds_count")
        .contains("vertx_http_server_active_connections");
    assertThat(value(text, "vertx_eventbus_handlers")).isPositive();
    assertThat(value(text, "vertx_pool_completed_total", "pool_type=\"sql\"", "pool_name=\"svc-db\""))
        .isPositive();
    assertThat(text).contains("vertx_pool_in_use{pool_name=\"svc-db\",pool_type=\"sql\"}");
    assertThat(text).contains("jvm_memory_used_bytes");
    // svc: every status of agents and tests, even at 0
    for (String status : new String[] {"online", "idle", "running", "error", "offline"}) {
      assertThat(value(text, "svc_agents_online", "status=\"" + status + "\"")).as(status).isZero();
    }
    for (String status : new String[] {"queued", "dispatched", "running", "completed", "failed"}) {
      assertThat(value(text, "svc_tests", "status=\"" + status + "\"")).as(status).isZero();
    }
    assertThat(value(text, "svc_heartbeats_total")).isZero();
    assertThat(value(text, "svc_sse_subscribers")).isZero();
    assertThat(value(text, "svc_campaign_runs")).isZero();
    assertThat(value(text, "svc_auth_failures_total")).isZero();
    assertThat(value(text, "svc_auth_lockouts_total")).isZero();
    assertThat(value(text, "svc_auth_throttled_total")).isZero();
    assertThat(value(text, "svc_auth_locked_addresses")).isZero();
    // a single node has no cluster series
    assertThat(text).doesNotContain("svc_cluster_members").doesNotContain("svc_singletons_here");
    assertThat(text).contains("# TYPE svc_heartbeats_total counter").contains("# TYPE svc_agents_online gauge");
  }

  @Test
  void svcSeriesFollowHeartbeatsAgentsTestsAndEventStreams() throws Exception {
    JsonObject provisioned = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "metrics-agent"))
        .bodyAsJsonObject();
    String token = provisioned.getString("token");
    WebClient agent = server.agentClient("metrics-agent");
    HttpResponse<Buffer> registered = TestServer.send(agent, HttpMethod.POST, "/api/v1/agents/register", token,
        new JsonObject().put("name", "metrics-agent").put("hostname", "metrics.lab").put("port", 8090)
            .put("gpu_info", "NVIDIA L4").put("gpu_count", 1).put("cpu_arch", "x86_64").put("environment_type", "native_linux")
            .put("capabilities", new JsonArray().add("llama_cpp")));
    assertThat(registered.statusCode()).isEqualTo(201);
    String agentId = registered.bodyAsJsonObject().getString("agent_id");
    double before = value(scrape(), "svc_heartbeats_total");

    JsonObject beat = new JsonObject().put("status", "idle").put("current_task", "").put("uptime_s", 60);
    for (int i = 0; i < 3; i++) {
      HttpResponse<Buffer> hb = TestServer.send(agent, HttpMethod.POST, "/api/v1/agents/" + agentId + "/heartbeat",
          token, beat);
      assertThat(hb.statusCode()).isEqualTo(200);
    }
    // counted before each answer is sent
    assertThat(value(scrape(), "svc_heartbeats_total")).isEqualTo(before + 3);

    String idle = scrapeUntil(t -> Double.valueOf(1.0).equals(value(t, "svc_agents_online", "status=\"idle\"")));
    assertThat(value(idle, "svc_agents_online", "status=\"idle\"")).isEqualTo(1.0);
    assertThat(value(idle, "svc_agents_online", "status=\"online\"")).isZero();

    // a queued test shows in svc_tests, read from list_counts
    HttpResponse<Buffer> queued = server.post("/api/v1/quicktest", GLOBAL, new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/llama-3-8b").put("engine_name", "vllm").put("benchmark_name", "throughput"));
    assertThat(queued.statusCode()).as(queued.bodyAsString()).isEqualTo(202);
    String tests = scrapeUntil(t -> Double.valueOf(1.0).equals(value(t, "svc_tests", "status=\"queued\"")));
    assertThat(value(tests, "svc_tests", "status=\"queued\"")).isEqualTo(1.0);

    // an open event stream counts until it ends
    HttpClient http = server.vertx().createHttpClient(new HttpClientOptions().setSsl(true)
        .setTrustOptions(new PemTrustOptions().addCertPath(server.home().certs().resolve("ca.pem").toString())));
    try {
      HttpClientResponse stream = http.request(new RequestOptions().setHost("localhost").setPort(server.port())
              .setURI("/api/v1/events/stream").putHeader("Accept", "text/event-stream")
              .putHeader("Authorization", "Bearer " + GLOBAL))
          .compose(request -> request.send()).await();
      assertThat(stream.statusCode()).isEqualTo(200);
      stream.exceptionHandler(err -> { }); // the test closes the connection under it
      String open = scrapeUntil(t -> Double.valueOf(1.0).equals(value(t, "svc_sse_subscribers")));
      assertThat(value(open, "svc_sse_subscribers")).isEqualTo(1.0);
      stream.request().connection().close().await();
      String closed = scrapeUntil(t -> Double.valueOf(0.0).equals(value(t, "svc_sse_subscribers")));
      assertThat(value(closed, "svc_sse_subscribers")).isZero();
    } finally {
      http.close().await();
    }
  }
}
