package dev.svc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.hardware.MemoryTracker;
import dev.svc.bench.hardware.NvidiaSmi;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadProgress;
import dev.svc.bench.measure.Slo;
import dev.svc.bench.run.BenchmarkExecutor;
import dev.svc.bench.run.BenchmarkOutcome;
import dev.svc.bench.run.RunOutput;
import dev.svc.bench.suite.BenchmarkSettings;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sweep load against the emulator: its steps, their rates and counts, and how they are reported. */
class SweepTest extends VertxTest {

  private static final int ITERATIONS = 10;
  private static final int WARMUP = 2;

  @TempDir
  Path temp;

  private EngineEmulator emulator;
  private BenchmarkExecutor executor;

  @BeforeEach
  void start() throws Exception {
    // every request takes 20 + 15 × 2 = 50 ms, however many run at once
    emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(20, 2, 16)), 10);
    StreamingClient client = new StreamingClient(vertx, "127.0.0.1", emulator.port(), 64, 10_000);
    executor = new BenchmarkExecutor(vertx, client, (prompt, maxTokens) -> RequestSpec.streamed(
        EngineCodec.forApi(RequestApi.OPENAI), GenerationRequest.completion(EngineEmulator.MODEL_ID, prompt, maxTokens)),
        MemoryTracker.detect(new NvidiaSmi("/nonexistent/nvidia-smi")), temp.resolve("datasets"), Slo.NONE, 42);
  }

  @Test
  void aSweepRunsTheBaselineThenMaxThroughputThenPoissonRatesBetweenThem() throws Exception {
    LoadProgress progress = new LoadProgress();
    BenchmarkOutcome outcome = await(executor.run(
        new BenchmarkSettings("throughput", ITERATIONS, 16, LoadModel.sweep(5), WARMUP, 0), progress), 60);
    JsonObject result = outcome.result();
    assertThat(result.getBoolean(MetricKeys.PASSED)).isTrue();
    assertThat(result.getJsonObject(MetricKeys.LOAD).getString(MetricKeys.LOAD_MODE)).isEqualTo("sweep");
    JsonObject metrics = result.getJsonObject(MetricKeys.METRICS);
    JsonArray steps = metrics.getJsonArray(MetricKeys.SWEEP);
    assertThat(steps).hasSize(6);
    assertThat(metrics.containsKey(MetricKeys.SWEEP_NOTE)).isFalse();

    JsonObject sequential = steps.getJsonObject(0);
    JsonObject max = steps.getJsonObject(1);
    assertThat(sequential.getString(MetricKeys.LOAD)).isEqualTo("sequential");
    assertThat(max.getString(MetricKeys.LOAD)).isEqualTo("concurrency:5");
    double rSeq = sequential.getDouble(MetricKeys.REQUEST_THROUGHPUT);
    double rMax = max.getDouble(MetricKeys.REQUEST_THROUGHPUT);
    // One request at a time: the baseline rate is 1 / E2E, less the client's own time between
    // requests; never more, as the window holds every request end to end. That time between
    // requests is the client's work at the machine's speed (a millisecond or two here): bounded by
    // 10 ms plus a tenth of the mean E2E, which a machine twice as slow or as busy still meets.
    double meanE2e = sequential.getJsonObject(MetricKeys.E2E_MS).getDouble(MetricKeys.MEAN);
    double perE2e = 1000.0 / meanE2e;
    assertThat(rSeq).isLessThanOrEqualTo(perE2e * 1.001).isGreaterThanOrEqualTo(1000.0 / (meanE2e * 1.1 + 10));
    // no request is quicker than the emulator's 50 ms
    assertThat(rSeq).isLessThanOrEqualTo(20.01);
    // five at once: more than one at a time, however loaded the machine running the test
    assertThat(rMax).isGreaterThan(rSeq);

    double previous = rSeq;
    for (int i = 2; i < steps.size(); i++) {
      JsonObject step = steps.getJsonObject(i);
      assertThat(step.getString(MetricKeys.LOAD)).startsWith("poisson:");
      double rate = LoadModel.parse(step.getString(MetricKeys.LOAD)).rate();
      assertThat(rate).isGreaterThan(previous).isLessThan(rMax);
      assertThat(step.fieldNames()).containsAll(MetricKeys.SWEEP_OPEN_LOOP_STEP);
      previous = rate;
    }
    for (int i = 0; i < steps.size(); i++) {
      JsonObject step = steps.getJsonObject(i);
      assertThat(step.fieldNames()).containsAll(MetricKeys.SWEEP_STEP);
      assertThat(step.getInteger(MetricKeys.TOTAL_ITERATIONS)).isEqualTo(ITERATIONS);
      assertThat(step.getInteger(MetricKeys.ERROR_COUNT)).isZero();
      assertThat(step.getJsonObject(MetricKeys.TTFT_MS).getDouble(MetricKeys.P50)).isGreaterThanOrEqualTo(20.0);
      assertThat(step.containsKey(MetricKeys.QUEUEING_DELAY_MS)).isEqualTo(i >= 2);
    }
    // the entry is valid exactly when every step is
    boolean allValid = steps.stream().allMatch(s -> ((JsonObject) s).getBoolean(MetricKeys.VALID));
    assertThat(result.getBoolean(MetricKeys.VALID)).isEqualTo(allValid);
    assertThat(result.containsKey(MetricKeys.INVALID_REASON)).isEqualTo(!allValid);

    // the top-level metrics are the max-throughput step's; the warmup went once, before the first step
    assertThat(metrics.getDouble(MetricKeys.REQUEST_THROUGHPUT)).isEqualTo(rMax);
    assertThat(metrics.getInteger(MetricKeys.TOTAL_ITERATIONS)).isEqualTo(ITERATIONS);
    assertThat(metrics.getJsonObject(MetricKeys.GPU_MEMORY).getString(MetricKeys.GPU_MEMORY_REASON)).contains("no GPU");
    assertThat(outcome.records()).hasSize(6 * ITERATIONS);
    assertThat(emulator.served()).isEqualTo(WARMUP + 6 * ITERATIONS);
    assertThat(progress.snapshot()).isEqualTo(new LoadProgress.Snapshot("step 6/6 " + steps.getJsonObject(5)
        .getString(MetricKeys.LOAD), 0, 0, ITERATIONS, ITERATIONS, 0));

    JsonObject document = new JsonObject().put(MetricKeys.MODEL, "tiny.gguf").put(MetricKeys.ENGINE, "llama_cpp")
        .put(MetricKeys.SUITE_NAME, "quick").put(MetricKeys.PASSED, true).put(MetricKeys.TOTAL_TIME_SECONDS, 2.0)
        .put(MetricKeys.TIMESTAMP, "2026-11-22T10:00:00.000Z").put(MetricKeys.RESULTS, new JsonArray().add(result));
    Path dir = temp.resolve("out");
    RunOutput.write(dir, document, new JsonObject(), Map.of("throughput", outcome.records()));
    assertThat(Files.readString(dir.resolve("summary.md")))
        .contains("## throughput: sweep (headline: the concurrency:5 step)", "| 1 | sequential | " + rSeq + " |",
            "| 2 | concurrency:5 | " + rMax + " |", "| 6 | " + steps.getJsonObject(5).getString(MetricKeys.LOAD) + " |");
    try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve("requests.jsonl.gz")))) {
      List<JsonObject> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(JsonObject::new).toList();
      assertThat(lines).hasSize(6 * ITERATIONS);
      assertThat(lines.get(0).getString(MetricKeys.LOAD)).isEqualTo("sequential");
      assertThat(lines.get(ITERATIONS).getString(MetricKeys.LOAD)).isEqualTo("concurrency:5");
      assertThat(lines.get(6 * ITERATIONS - 1).getString(MetricKeys.LOAD)).isEqualTo(steps.getJsonObject(5).getString(MetricKeys.LOAD));
    }
  }
}
