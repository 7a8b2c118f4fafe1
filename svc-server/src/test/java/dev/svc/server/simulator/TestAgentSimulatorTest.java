package dev.svc.server.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.SvcVersion;
import dev.svc.core.Timestamps;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.EngineCatalog;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Quick tests on a test agent run as simulations through the real server: lifecycle, logs, result, cancel, restart. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TestAgentSimulatorTest {

  private static final Set<String> VIEW_FIELDS = Set.of("id", "test_id", "agent_id", "indexed_at");
  private static final long JITTER_MS = 150;

  @TempDir
  Path home;

  private static TestServer.Options fast() {
    return new TestServer.Options().insecure().timings(Timings.defaults().withSimulatorDelays(20, 40));
  }

  @Test
  void simulatedTestRunsQueuedRunningCompletedWithTenOrMoreLogLines() throws Exception {
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure());
        RecordedEvents events = new RecordedEvents(server.vertx())) {
      String agentId = testAgent(server);
      String testId = submit(server, agentId, "throughput");

      RecordedEvents.Arrival done = await(events.terminal(testId), 60);

      assertThat(done.data().getString("status")).isEqualTo("completed");
      List<String> statuses = events.of(testId, "status").stream().map(a -> a.data().getString("status")).toList();
      assertThat(statuses).containsExactly("queued", "running", "completed");
      List<RecordedEvents.Arrival> logs = events.of(testId, "log");
      assertThat(logs).hasSizeGreaterThanOrEqualTo(10);
      List<Long> gapsMs = new ArrayList<>();
      for (int i = 1; i < logs.size(); i++) {
        gapsMs.add(TimeUnit.NANOSECONDS.toMillis(logs.get(i).nanos() - logs.get(i - 1).nanos()));
      }
      // paced 0.5-1.5 s apart: every gap but two, since one line stored or delivered late (a busy
      // machine, a collection) lengthens the gap before it and shortens the one after
      assertThat(gapsMs.stream().filter(gap -> gap < 500 - JITTER_MS || gap > 1500 + JITTER_MS).count())
          .as("gaps outside the pace: %s", gapsMs).isLessThanOrEqualTo(2);
      // stored exactly as streamed, in order
      JsonArray stored = server.get("/api/v1/quicktest/" + testId + "/logs").bodyAsJsonObject().getJsonArray("lines");
      assertThat(stored.stream().map(l -> ((JsonObject) l).getString("line")).toList())
          .containsExactlyElementsOf(logs.stream().map(a -> a.data().getString("line")).toList());
      List<String> lines = logs.stream().map(a -> a.data().getString("line")).toList();
      assertThat(lines).anySatisfy(l -> assertThat(l).contains("vllm/vllm-openai:latest").contains("Checking image"));
      assertThat(lines).anySatisfy(l -> assertThat(l).contains("docker run").contains("--network host")
          .containsPattern("--name kitt-\\d+").contains("--gpus all").contains("-v /models/llama-3-8b:/models"));
      assertThat(lines).anySatisfy(l -> assertThat(l).contains("http://127.0.0.1:8000/health"));
      assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("Warmup:"));
      assertThat(lines).filteredOn(l -> l.startsWith("[throughput] iteration")).hasSize(3);
      assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("Summary: throughput passed"));
      // the result event comes before the completed status, and the test links that result
      List<RecordedEvents.Arrival> all = events.of(testId);
      int resultAt = indexOf(all, "result");
      assertThat(resultAt).isGreaterThan(indexOf(all, "log")).isLessThan(all.size() - 1);
      JsonObject test = server.get("/api/v1/quicktest/" + testId).bodyAsJsonObject();
      assertThat(test.getString("status")).isEqualTo("completed");
      assertThat(test.getString("result_id")).isEqualTo(all.get(resultAt).data().getString("result_id"));
      assertThat(await(events.finished(testId), 10).data().getString("outcome")).isEqualTo("completed");
    }
  }

  @Test
  void resultHasTheRealMetricKeysAndIsListed() throws Exception {
    try (TestServer server = TestServer.start(home, fast());
        RecordedEvents events = new RecordedEvents(server.vertx())) {
      String agentId = testAgent(server);
      String testId = submit(server, agentId, "throughput");
      assertThat(await(events.terminal(testId), 30).data().getString("status")).isEqualTo("completed");
      String resultId = events.of(testId, "result").get(0).data().getString("result_id");

      HttpResponse<Buffer> listed = server.get("/api/v1/results?engine=vllm");
      assertThat(listed.statusCode()).isEqualTo(200);
      JsonArray items = listed.bodyAsJsonObject().getJsonArray("items");
      JsonObject result = items.stream().map(JsonObject.class::cast)
          .filter(r -> resultId.equals(r.getString("id"))).findFirst().orElseThrow();
      assertThat(result.getString("test_id")).isEqualTo(testId);
      assertThat(result.getString("agent_id")).isEqualTo(agentId);
      // a list carries summaries: the whole document comes from the result itself
      result = server.get("/api/v1/results/" + resultId).bodyAsJsonObject();

      Set<String> topLevel = new HashSet<>(result.fieldNames());
      topLevel.removeAll(VIEW_FIELDS);
      assertThat(topLevel).containsExactlyInAnyOrderElementsOf(with(MetricKeys.TOP_LEVEL, MetricKeys.SIMULATED));
      assertThat(result.getBoolean(MetricKeys.SIMULATED)).isTrue();
      assertThat(result.getString(MetricKeys.SVC_VERSION)).isEqualTo(SvcVersion.version());
      assertThat(result.getString(MetricKeys.ENGINE)).isEqualTo("vllm");
      assertThat(result.getString(MetricKeys.ENGINE_IMAGE)).isEqualTo("vllm/vllm-openai:latest");
      assertThat(result.getString(MetricKeys.MODEL)).isEqualTo("/models/llama-3-8b");
      assertThat(result.getString(MetricKeys.SUITE_NAME)).isEqualTo("quick");
      assertThat(result.getBoolean(MetricKeys.PASSED)).isTrue();
      assertThat(result.getBoolean(MetricKeys.VALID)).isTrue();
      assertThat(result.getInteger(MetricKeys.TOTAL_BENCHMARKS)).isEqualTo(1);
      assertThat(result.getInteger(MetricKeys.PASSED_COUNT)).isEqualTo(1);
      assertThat(result.getInteger(MetricKeys.FAILED_COUNT)).isZero();
      assertThat(result.getDouble(MetricKeys.TOTAL_TIME_SECONDS)).isPositive();

      JsonObject system = result.getJsonObject(MetricKeys.SYSTEM_INFO);
      assertThat(system.fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.SYSTEM_INFO_KEYS);
      JsonObject gpu = system.getJsonObject(MetricKeys.GPU);
      assertThat(gpu.fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.SYSTEM_GPU_KEYS);
      assertThat(gpu.getString(MetricKeys.GPU_MODEL)).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(gpu.getInteger(MetricKeys.VRAM_GB)).isEqualTo(80);
      assertThat(gpu.getInteger(MetricKeys.GPU_COUNT)).isEqualTo(2);
      assertThat(gpu.getJsonArray(MetricKeys.COMPUTE_CAPABILITY)).containsExactly(9, 0);
      assertThat(system.getJsonObject(MetricKeys.CPU).fieldNames())
          .containsExactlyInAnyOrderElementsOf(MetricKeys.SYSTEM_CPU_KEYS);

      JsonArray results = result.getJsonArray(MetricKeys.RESULTS);
      assertThat(results).hasSize(1);
      JsonObject bench = results.getJsonObject(0);
      assertThat(bench.fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.RESULT);
      assertThat(bench.getString(MetricKeys.TEST_NAME)).isEqualTo("throughput");
      assertThat(bench.getBoolean(MetricKeys.PASSED)).isTrue();
      assertThat(bench.getJsonArray(MetricKeys.ERRORS)).isEmpty();
      assertThat(bench.getJsonObject(MetricKeys.LOAD).fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.LOAD_KEYS);
      JsonObject metrics = bench.getJsonObject(MetricKeys.METRICS);
      assertThat(metrics.fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.PERFORMANCE);
      MetricsAssertions.distributionsAreOrdered(metrics);
      MetricsAssertions.gpuMemoryWithin(metrics.getJsonObject(MetricKeys.GPU_MEMORY), 80 * 1024);
      assertThat(metrics.getString(MetricKeys.TOKEN_COUNT_SOURCE)).isEqualTo("usage");

      JsonObject test = server.get("/api/v1/quicktest/" + testId).bodyAsJsonObject();
      assertThat(test.getString("result_id")).isEqualTo(resultId);
      assertThat(server.get("/api/v1/results/" + resultId).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void qualityBenchmarkHasAccuracyCorrectTotal() throws Exception {
    try (TestServer server = TestServer.start(home, fast());
        RecordedEvents events = new RecordedEvents(server.vertx())) {
      String agentId = testAgent(server);
      String testId = submit(server, agentId, "mmlu");
      assertThat(await(events.terminal(testId), 30).data().getString("status")).isEqualTo("completed");
      String resultId = events.of(testId, "result").get(0).data().getString("result_id");

      JsonObject result = server.get("/api/v1/results/" + resultId).bodyAsJsonObject();
      JsonObject bench = result.getJsonArray(MetricKeys.RESULTS).getJsonObject(0);
      assertThat(bench.getString(MetricKeys.TEST_NAME)).isEqualTo("mmlu");
      JsonObject metrics = bench.getJsonObject(MetricKeys.METRICS);
      assertThat(metrics.fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.QUALITY);
      double accuracy = metrics.getDouble(MetricKeys.ACCURACY);
      int correct = metrics.getInteger(MetricKeys.CORRECT);
      int total = metrics.getInteger(MetricKeys.TOTAL);
      assertThat(accuracy).isBetween(0.0, 1.0);
      assertThat(total).isPositive();
      assertThat(correct).isBetween(0, total);
      assertThat(accuracy).isCloseTo((double) correct / total, org.assertj.core.data.Offset.offset(1e-9));
      assertThat(events.of(testId, "log")).hasSizeGreaterThanOrEqualTo(10);
    }
  }

  @Test
  void cancelStopsTheSimulationBetweenIterations() throws Exception {
    // pauses long enough that the cancel lands between two lines even on a loaded machine
    TestServer.Options options = new TestServer.Options().insecure()
        .timings(Timings.defaults().withSimulatorDelays(200, 300));
    try (TestServer server = TestServer.start(home, options);
        RecordedEvents events = new RecordedEvents(server.vertx())) {
      String agentId = testAgent(server);
      String testId = submit(server, agentId, "throughput");
      CompletableFuture<RecordedEvents.Arrival> third = events.log(testId, 3);
      await(third, 30);

      HttpResponse<Buffer> cancelled = server.post("/api/v1/quicktest/" + testId + "/cancel", new JsonObject());
      assertThat(cancelled.statusCode()).isEqualTo(200);
      RecordedEvents.Arrival finished = await(events.finished(testId), 30);

      assertThat(finished.data().getString("outcome")).isEqualTo("stopped");
      RecordedEvents.Arrival failed = await(events.terminal(testId), 1);
      assertThat(failed.data().getString("status")).isEqualTo("failed");
      assertThat(failed.data().getString("error")).isEqualTo("Cancelled by user");
      assertThat(events.of(testId, "log")).hasSize(3);
      assertThat(events.of(testId, "result")).isEmpty();
      List<String> statuses = events.of(testId, "status").stream().map(a -> a.data().getString("status")).toList();
      assertThat(statuses).containsExactly("queued", "running", "failed");
      JsonObject test = server.get("/api/v1/quicktest/" + testId).bodyAsJsonObject();
      assertThat(test.getString("status")).isEqualTo("failed");
      assertThat(test.getString("error")).isEqualTo("Cancelled by user");
      assertThat(test.getValue("result_id")).isNull();
      assertThat(server.get("/api/v1/quicktest/" + testId + "/logs").bodyAsJsonObject().getJsonArray("lines"))
          .hasSize(3);
      assertThat(server.get("/api/v1/results?agent_id=" + agentId).bodyAsJsonObject().getLong("total")).isZero();
    }
  }

  @Test
  void aTestAgentRunsOneTestAtATimeAndTheOthersWaitQueued() throws Exception {
    try (TestServer server = TestServer.start(home, fast());
        RecordedEvents events = new RecordedEvents(server.vertx())) {
      String agentId = testAgent(server);
      String first = submit(server, agentId, "latency");
      String second = submit(server, agentId, "latency");
      String third = submit(server, agentId, "latency");
      await(events.terminal(third), 60);
      List<RecordedEvents.Arrival> statuses = new ArrayList<>();
      for (String test : List.of(first, second, third)) {
        statuses.addAll(events.of(test, "status"));
      }
      statuses.sort(java.util.Comparator.comparingLong(RecordedEvents.Arrival::nanos));
      List<String> order = statuses.stream().filter(a -> !"queued".equals(a.data().getString("status")))
          .map(a -> a.testId() + ":" + a.data().getString("status")).toList();
      assertThat(order).containsExactly(first + ":running", first + ":completed", second + ":running",
          second + ":completed", third + ":running", third + ":completed");
    }
  }

  @Test
  void simulationResumesAfterRestart() throws Exception {
    // pauses long enough that the first server surely stops mid-run
    TestServer.Options options = new TestServer.Options().insecure()
        .timings(Timings.defaults().withSimulatorDelays(100, 150));
    String testId;
    try (TestServer first = TestServer.start(home, options);
        RecordedEvents events = new RecordedEvents(first.vertx())) {
      String agentId = testAgent(first);
      testId = submit(first, agentId, "latency");
      await(events.log(testId, 3), 30);
    }
    try (TestServer second = TestServer.start(home, options);
        RecordedEvents events = new RecordedEvents(second.vertx())) {
      CompletableFuture<RecordedEvents.Arrival> done = events.terminal(testId);
      JsonObject test = second.get("/api/v1/quicktest/" + testId).bodyAsJsonObject();
      if (!List.of("completed", "failed").contains(test.getString("status"))) {
        assertThat(await(done, 30).data().getString("status")).isEqualTo("completed");
        test = second.get("/api/v1/quicktest/" + testId).bodyAsJsonObject();
      }
      assertThat(test.getString("status")).isEqualTo("completed");
      assertThat(test.getString("result_id")).isNotNull();
      JsonObject result = second.get("/api/v1/results/" + test.getString("result_id")).bodyAsJsonObject();
      assertThat(result.getBoolean(MetricKeys.SIMULATED)).isTrue();
      assertThat(result.getJsonArray(MetricKeys.RESULTS).getJsonObject(0).getString(MetricKeys.TEST_NAME))
          .isEqualTo("latency");
      // the new server continued the run after its last stored line: the log is the one plan of this
      // test, every line once, with the figures of the result it reported once
      List<String> lines = second.get("/api/v1/quicktest/" + testId + "/logs").bodyAsJsonObject().getJsonArray("lines")
          .stream().map(l -> ((JsonObject) l).getString("line")).toList();
      JsonObject agent = second.get("/api/v1/agents/" + test.getString("agent_id")).bodyAsJsonObject();
      int seed = Simulation.seedOf(testId);
      SimulatedTest planned = new SimulatedTest(test.getString("model_path"), test.getString("engine_name"),
          test.getString("benchmark_name"), test.getString("suite_name"));
      SimulatedHost host = SimulatedHost.of(agent.getString("id"), agent.getString("name"), agent.getString("gpu_info"),
          agent.getInteger("gpu_count"), agent.getString("cpu_info"), agent.getString("cpu_arch"),
          agent.getInteger("ram_gb"), agent.getString("environment_type"), agent.getString("fingerprint"));
      SimulationPlan plan = SimulationPlan.create(planned, host, EngineCatalog.defaults().find("vllm").orElseThrow(), seed,
          new SplittableRandom(seed), Timestamps.parse(test.getString("started_at")).orElseThrow());
      assertThat(lines).containsExactlyElementsOf(plan.lines());
      assertThat(lines.stream().filter(l -> l.startsWith("svc "))).hasSize(1);
      assertThat(second.get("/api/v1/results?engine=vllm").bodyAsJsonObject().getLong("total")).isEqualTo(1);
    }
  }

  // --- helpers ---

  static String testAgent(TestServer server) {
    HttpResponse<Buffer> created = server.post("/api/v1/agents/test",
        new JsonObject().put("name", "sim").put("gpu_info", "NVIDIA H100 80GB HBM3").put("gpu_count", 2));
    assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(201);
    return created.bodyAsJsonObject().getString("id");
  }

  static String submit(TestServer server, String agentId, String benchmark) {
    HttpResponse<Buffer> submitted = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/llama-3-8b").put("engine_name", "vllm").put("benchmark_name", benchmark));
    assertThat(submitted.statusCode()).as(submitted.bodyAsString()).isEqualTo(202);
    assertThat(submitted.bodyAsJsonObject().getString("status")).isEqualTo("queued");
    return submitted.bodyAsJsonObject().getString("id");
  }

  static <T> T await(CompletableFuture<T> future, int seconds) throws Exception {
    return future.get(seconds, TimeUnit.SECONDS);
  }

  private static int indexOf(List<RecordedEvents.Arrival> events, String type) {
    for (int i = 0; i < events.size(); i++) {
      if (type.equals(events.get(i).type())) {
        return i;
      }
    }
    return -1;
  }

  private static List<String> with(List<String> keys, String extra) {
    List<String> all = new ArrayList<>(keys);
    all.add(extra);
    return all;
  }
}
