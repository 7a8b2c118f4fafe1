package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.metrics.MetricKeys;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 3's acceptance, seen the way a browser sees it: over real SSE streams of a running server
 * with test agents simulating the work.
 */
class LiveServerAcceptanceTest {

  @TempDir
  Path home;

  private static HttpClient http(TestServer server) {
    return server.vertx().createHttpClient(new HttpClientOptions().setDefaultHost("localhost")
        .setDefaultPort(server.port()));
  }

  private static String testAgent(TestServer server) {
    return server.post("/api/v1/agents/test", new JsonObject().put("name", "sim").put("gpu_info", "NVIDIA H100 80GB HBM3")
        .put("gpu_count", 1)).bodyAsJsonObject().getString("id");
  }

  private static String submit(TestServer server, String agent) {
    return server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agent).put("model_path", "/models/llama-3-8b")
        .put("engine_name", "vllm").put("benchmark_name", "throughput")).bodyAsJsonObject().getString("id");
  }

  private static List<String> statuses(SseTestClient stream) {
    return stream.frames("status").stream().map(f -> f.json().getString("status")).toList();
  }

  private static List<String> logLines(SseTestClient stream) {
    return stream.frames("log").stream().map(f -> f.json().getString("line")).toList();
  }

  @Test
  void quickTestOnATestAgentStreamsLiveLinesThenCompletedThenTheServerClosesTheStream() {
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure())) {
      String testId = submit(server, testAgent(server));
      try (SseTestClient stream = SseTestClient.open(http(server), "/api/v1/events/stream/" + testId)) {
        assertThat(stream.status()).isEqualTo(200);
        stream.waitFor("5 log lines", () -> stream.frames("log").size() >= 5);
        stream.waitFor("10 log lines", () -> stream.frames("log").size() >= 10);
        assertThat(stream.awaitEnd()).isEqualTo("end");

        assertThat(statuses(stream)).containsSubsequence("running", "completed");
        assertThat(statuses(stream).get(statuses(stream).size() - 1)).isEqualTo("completed");
        List<SseTestClient.Frame> logs = stream.frames("log");
        assertThat(logs).hasSizeGreaterThanOrEqualTo(10);
        // Live, not in a burst: the lines arrive as paced, every gap but two (one line late, on a
        // busy machine, lengthens the gap before it and shortens the one after).
        List<Long> arrivalGapsMs = new ArrayList<>();
        for (int i = 1; i < logs.size(); i++) {
          arrivalGapsMs.add((logs.get(i).arrivedNanos() - logs.get(i - 1).arrivedNanos()) / 1_000_000);
        }
        assertThat(arrivalGapsMs.stream().filter(gap -> gap < 300 || gap > 2_000).count())
            .as("arrival gaps outside 300-2,000 ms: %s", arrivalGapsMs).isLessThanOrEqualTo(2);
        // The server-side spacing, from the stored lines' timestamps, is the simulator's 0.5–1.5 s.
        JsonArray stored = server.get("/api/v1/quicktest/" + testId + "/logs").bodyAsJsonObject().getJsonArray("lines");
        assertThat(stored.stream().map(l -> ((JsonObject) l).getString("line")).toList()).isEqualTo(logLines(stream));
        List<Long> storedGapsMs = new ArrayList<>();
        for (int i = 1; i < stored.size(); i++) {
          storedGapsMs.add(Duration.between(Instant.parse(stored.getJsonObject(i - 1).getString("created_at")),
              Instant.parse(stored.getJsonObject(i).getString("created_at"))).toMillis());
        }
        assertThat(storedGapsMs.stream().filter(gap -> gap < 500 || gap > 1_700).count())
            .as("stored gaps outside 500-1,700 ms: %s", storedGapsMs).isLessThanOrEqualTo(2);
      }

      JsonObject results = server.get("/api/v1/results?engine=vllm").bodyAsJsonObject();
      assertThat(results.getLong("total")).isEqualTo(1);
      JsonObject item = results.getJsonArray("items").getJsonObject(0);
      assertThat(item.getString("test_id")).isEqualTo(testId);
      // the list carries a summary; the whole document comes from the result itself
      assertThat(item.getJsonArray("results").getJsonObject(0).getString("test_name")).isEqualTo("throughput");
      JsonObject result = server.get("/api/v1/results/" + item.getString("id")).bodyAsJsonObject();
      assertThat(result.fieldNames()).containsAll(MetricKeys.TOP_LEVEL);
      JsonObject benchmark = result.getJsonArray("results").getJsonObject(0);
      assertThat(benchmark.getString("test_name")).isEqualTo("throughput");
      assertThat(benchmark.getJsonObject("metrics").fieldNames()).containsAll(MetricKeys.PERFORMANCE);
      assertThat(benchmark.getJsonObject("metrics").getJsonObject("ttft_ms").fieldNames())
          .containsAll(MetricKeys.STATISTICS);
      assertThat(server.get("/api/v1/quicktest/" + testId).bodyAsJsonObject().getString("result_id"))
          .isEqualTo(result.getString("id"));
    }
  }

  @Test
  void aClientThatReconnectsWithLastEventIdReceivesEveryLogLineExactlyOnce() {
    Timings quick = Timings.defaults().withSimulatorDelays(100, 150);
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure().timings(quick))) {
      String testId = submit(server, testAgent(server));
      HttpClient http = http(server);
      List<String> first;
      long lastSeen;
      try (SseTestClient before = SseTestClient.open(http, "/api/v1/events/stream/" + testId)) {
        before.waitFor("4 log lines", () -> before.frames("log").size() >= 4);
        List<SseTestClient.Frame> frames = before.frames();
        lastSeen = frames.get(frames.size() - 1).id();
        first = frames.stream().filter(f -> "log".equals(f.event())).map(f -> f.json().getString("line")).toList();
      }
      List<String> second;
      try (SseTestClient after = SseTestClient.open(http, "/api/v1/events/stream/" + testId,
          new SseTestClient.Options().header("Last-Event-ID", String.valueOf(lastSeen)))) {
        assertThat(after.awaitEnd()).isEqualTo("end");
        assertThat(after.frames()).allSatisfy(f -> assertThat(f.id()).isGreaterThan(lastSeen));
        second = logLines(after);
        assertThat(statuses(after)).endsWith("completed");
      }
      List<String> both = new ArrayList<>(first);
      both.addAll(second);
      List<String> stored = server.get("/api/v1/quicktest/" + testId + "/logs").bodyAsJsonObject().getJsonArray("lines")
          .stream().map(l -> ((JsonObject) l).getString("line")).toList();
      assertThat(first).isNotEmpty();
      assertThat(second).isNotEmpty();
      assertThat(both).isEqualTo(stored);
      assertThat(new HashSet<>(both)).hasSameSizeAs(both);
    }
  }

  private static String campaign(TestServer server, String agent) {
    JsonObject config = new JsonObject()
        .put("models", new JsonArray().add(new JsonObject().put("name", "llama").put("path", "/models/llama-3-8b"))
            .add(new JsonObject().put("name", "qwen").put("path", "/models/qwen-7b")))
        .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")).add(new JsonObject().put("name", "tgi")));
    String id = server.post("/api/v1/campaigns", new JsonObject().put("name", "matrix").put("agent_id", agent)
        .put("config", config)).bodyAsJsonObject().getString("id");
    assertThat(server.post("/api/v1/campaigns/" + id + "/launch", new JsonObject()).statusCode()).isEqualTo(202);
    return id;
  }

  @Test
  void campaignOfTwoModelsByTwoEnginesCompletesWithItsLogStoredAndStreamed() {
    Timings quick = Timings.defaults().withSimulatorDelays(20, 40);
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure().timings(quick))) {
      String id = campaign(server, testAgent(server));
      try (SseTestClient stream = SseTestClient.open(http(server), "/api/v1/events/stream/" + id)) {
        assertThat(stream.awaitEnd()).isEqualTo("end");
        assertThat(statuses(stream)).endsWith("completed");
        List<String> streamed = logLines(stream);
        for (int row = 1; row <= 4; row++) {
          String prefix = "[" + row + "/4] ";
          assertThat(streamed).as("row %d", row).anyMatch(line -> line.startsWith(prefix));
        }
        List<String> stored = server.get("/api/v1/campaigns/" + id + "/logs").bodyAsJsonObject().getJsonArray("lines")
            .stream().map(l -> ((JsonObject) l).getString("line")).toList();
        assertThat(stored).isEqualTo(streamed);
      }
      JsonObject done = server.get("/api/v1/campaigns/" + id).bodyAsJsonObject();
      assertThat(done.getString("status")).isEqualTo("completed");
      assertThat(done.getInteger("total_runs")).isEqualTo(4);
      assertThat(done.getInteger("succeeded")).isEqualTo(4);
      assertThat(done.getInteger("failed")).isZero();
      assertThat(done.getJsonArray("quick_tests")).hasSize(4)
          .allSatisfy(t -> assertThat(((JsonObject) t).getString("status")).isEqualTo("completed"));
      assertThat(server.get("/api/v1/results").bodyAsJsonObject().getLong("total")).isEqualTo(4);
    }
  }

  @Test
  void cancellingACampaignMidwayStopsWithinOneIterationFailsTheRowAndClosesTheStream() {
    Timings paced = Timings.defaults().withSimulatorDelays(200, 300);
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure().timings(paced))) {
      String id = campaign(server, testAgent(server));
      try (SseTestClient stream = SseTestClient.open(http(server), "/api/v1/events/stream/" + id)) {
        stream.waitFor("3 lines of the first row", () -> logLines(stream).stream()
            .filter(l -> l.startsWith("[1/4] ")).count() >= 3);
        assertThat(server.post("/api/v1/campaigns/" + id + "/cancel", new JsonObject()).statusCode()).isEqualTo(200);
        // the lines stored when the cancel was answered, not those the stream had delivered by then
        // (on a busy machine, a line can be stored before the cancel and arrive after it)
        long rowLinesAtCancel = server.get("/api/v1/campaigns/" + id + "/logs").bodyAsJsonObject().getJsonArray("lines")
            .stream().filter(l -> ((JsonObject) l).getString("line").startsWith("[1/4] ")).count();
        assertThat(stream.awaitEnd()).isEqualTo("end");
        assertThat(statuses(stream)).endsWith("cancelled");
        long rowLinesAfter = logLines(stream).stream().filter(l -> l.startsWith("[1/4] ")).count();
        assertThat(rowLinesAfter - rowLinesAtCancel).as("lines of the row after the cancel").isLessThanOrEqualTo(1);
        assertThat(logLines(stream)).noneMatch(l -> l.startsWith("[2/4] "));
      }
      JsonObject cancelled = server.get("/api/v1/campaigns/" + id).bodyAsJsonObject();
      assertThat(cancelled.getString("status")).isEqualTo("cancelled");
      JsonArray rows = cancelled.getJsonArray("quick_tests");
      assertThat(rows).hasSize(1);
      assertThat(rows.getJsonObject(0).getString("status")).isEqualTo("failed");
      assertThat(rows.getJsonObject(0).getString("error")).isEqualTo("Cancelled by user");
      assertThat(server.get("/api/v1/results").bodyAsJsonObject().getLong("total")).isZero();
    }
  }
}
