package dev.svc.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.hardware.MemoryTracker;
import dev.svc.bench.hardware.NvidiaSmi;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.measure.Slo;
import dev.svc.bench.run.BenchmarkExecutor;
import dev.svc.bench.run.BenchmarkOutcome;
import dev.svc.bench.run.RunOutput;
import dev.svc.bench.run.Stabilization;
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

/** One benchmark of a suite against the emulator: its metrics.json entry and the files of a run. */
class BenchmarkExecutorTest extends VertxTest {

  @TempDir
  Path temp;

  private BenchmarkExecutor executor;

  @BeforeEach
  void start() throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(2, 1, 12)), 10);
    StreamingClient client = new StreamingClient(vertx, "127.0.0.1", emulator.port(), 16, 10_000);
    executor = new BenchmarkExecutor(vertx, client, (prompt, maxTokens) -> RequestSpec.streamed(
        EngineCodec.forApi(RequestApi.OPENAI), GenerationRequest.completion(EngineEmulator.MODEL_ID, prompt, maxTokens)),
        MemoryTracker.detect(new NvidiaSmi("/nonexistent/nvidia-smi")), temp.resolve("datasets"), Slo.parse("ttft_ms=1000"), 42);
  }

  private BenchmarkOutcome run(BenchmarkSettings settings) throws Exception {
    return await(executor.run(settings), 60);
  }

  @Test
  void aThroughputBenchmarkRecordsItsLoadMetricsAndWhyThereIsNoGpuMemory() throws Exception {
    BenchmarkOutcome outcome = run(new BenchmarkSettings("throughput", 24, 12, LoadModel.concurrency(4), 3, 0));
    JsonObject result = outcome.result();
    assertThat(result.getString(MetricKeys.TEST_NAME)).isEqualTo("throughput");
    assertThat(result.getBoolean(MetricKeys.PASSED)).isTrue();
    assertThat(result.getBoolean(MetricKeys.VALID)).isTrue();
    assertThat(result.getJsonArray(MetricKeys.ERRORS)).isEmpty();
    assertThat(result.getJsonObject(MetricKeys.LOAD).getString(MetricKeys.LOAD_MODE)).isEqualTo("concurrency:4");
    assertThat(result.getJsonObject(MetricKeys.LOAD).getInteger(MetricKeys.LOAD_WARMUP_REQUESTS)).isEqualTo(3);
    assertThat(result.getJsonObject(MetricKeys.LOAD).getString("prompts_hash")).matches("[0-9a-f]{16}");
    JsonObject metrics = result.getJsonObject(MetricKeys.METRICS);
    assertThat(metrics.getLong(MetricKeys.TOTAL_ITERATIONS)).isEqualTo(24);
    assertThat(metrics.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(24 * 12);
    assertThat(metrics.getDouble(MetricKeys.SLO_ATTAINMENT)).isEqualTo(1.0);
    JsonObject gpu = metrics.getJsonObject(MetricKeys.GPU_MEMORY);
    assertThat(gpu.getValue("peak_memory_mb")).isNull();
    assertThat(gpu.getString("reason")).contains("no GPU");
    assertThat(outcome.records()).hasSize(24);
  }

  @Test
  void theWarmupBenchmarkReportsItsStabilizationPoint() throws Exception {
    JsonObject metrics = run(new BenchmarkSettings("warmup", 10, 8, LoadModel.SEQUENTIAL, 0, 0)).result()
        .getJsonObject(MetricKeys.METRICS);
    // the emulator's latency is flat, but a loaded machine adds noise: the point exists, where it is is the unit's test
    assertThat(metrics.getInteger(MetricKeys.STABILIZATION_ITERATION)).isBetween(-1, 10).isNotZero();
    assertThat(metrics.getLong(MetricKeys.TOTAL_ITERATIONS)).isEqualTo(10);
    assertThat(Stabilization.iteration(new double[] {300, 200, 120, 101, 99, 100, 100, 102})).isEqualTo(4);
    // one slow request late in the run neither hides the point nor moves it
    assertThat(Stabilization.iteration(new double[] {300, 200, 120, 101, 99, 100, 160, 100, 102, 100})).isEqualTo(4);
    assertThat(Stabilization.iteration(new double[] {100, 101, 99, 100})).isEqualTo(1);
    assertThat(Stabilization.iteration(new double[] {1, 2})).isEqualTo(-1);
    assertThat(Stabilization.iteration(new double[] {100, 100, 100, 100, 100, 100, 300, 300})).isEqualTo(-1);
  }

  @Test
  void aQualityBenchmarkWithoutItsDatasetFailsWithTheReason() throws Exception {
    JsonObject result = run(new BenchmarkSettings("gsm8k", 1, 64, LoadModel.SEQUENTIAL, 0, 10)).result();
    assertThat(result.getBoolean(MetricKeys.PASSED)).isFalse();
    assertThat(result.getJsonArray(MetricKeys.ERRORS).getString(0)).contains("Dataset for gsm8k not found");
  }

  @Test
  void theRunDirectoryHoldsEveryFile() throws Exception {
    BenchmarkOutcome outcome = run(new BenchmarkSettings("latency", 5, 6, LoadModel.SEQUENTIAL, 1, 0));
    JsonObject metrics = new JsonObject().put(MetricKeys.MODEL, "tiny.gguf").put(MetricKeys.ENGINE, "llama_cpp")
        .put(MetricKeys.SUITE_NAME, "performance").put(MetricKeys.PASSED, true).put(MetricKeys.TOTAL_TIME_SECONDS, 1.5)
        .put(MetricKeys.TIMESTAMP, "2026-11-22T10:00:00.000Z").put(MetricKeys.RESULTS, new JsonArray().add(outcome.result()))
        .put(MetricKeys.SYSTEM_INFO, new JsonObject().put("ram_gb", 24));
    Path dir = temp.resolve("out");
    RunOutput.write(dir, metrics, new JsonObject().put("suite", "performance"), Map.of("latency", outcome.records()));
    assertThat(new JsonObject(Files.readString(dir.resolve("metrics.json")))).isEqualTo(metrics);
    assertThat(new JsonObject(Files.readString(dir.resolve("hardware.json")))).isEqualTo(new JsonObject().put("ram_gb", 24));
    assertThat(Files.readString(dir.resolve("summary.md"))).contains("# tiny.gguf on llama_cpp", "| latency | yes |");
    try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve("requests.jsonl.gz")))) {
      List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      assertThat(lines).hasSize(5);
      JsonObject first = new JsonObject(lines.get(0));
      assertThat(first.getString("benchmark")).isEqualTo("latency");
      assertThat(first.getDouble("t_send_ms")).isEqualTo(0.0);
      assertThat(first.getJsonArray("chunks_ms")).hasSize(6);
      assertThat(first.getInteger("output_tokens")).isEqualTo(6);
    }
  }
}
