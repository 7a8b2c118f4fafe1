package dev.svc.server.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.domain.Benchmarks;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The plan of a simulated run: a metrics.json with the real keys and consistent figures, and a believable log. */
class SimulationPlanTest {

  private static final EngineCatalog ENGINES = EngineCatalog.defaults();

  static List<String> benchmarks() {
    return Benchmarks.all();
  }

  private static SimulatedHost agent(String gpu, int count) {
    return SimulatedHost.of("a1", "sim", gpu, count, "AMD EPYC 9654", "amd64", 512, "native_linux", null);
  }

  private static SimulatedTest test(String engine, String benchmark) {
    return new SimulatedTest("/models/llama-3-8b", engine, benchmark, "quick");
  }

  private static SimulationPlan plan(String engine, String benchmark, String gpu, int count, int seed) {
    EngineSpec spec = ENGINES.find(engine).orElseThrow();
    return SimulationPlan.create(test(engine, benchmark), agent(gpu, count), spec, seed, new SplittableRandom(seed),
        Instant.parse("2026-11-22T10:00:00Z"));
  }

  @ParameterizedTest
  @MethodSource("benchmarks")
  void everyBenchmarkHasExactlyItsMetricKeys(String benchmark) {
    for (int seed = 1; seed <= 20; seed++) {
      JsonObject doc = plan("vllm", benchmark, "NVIDIA H100 80GB HBM3", 2, seed).document();

      List<String> top = new ArrayList<>(MetricKeys.TOP_LEVEL);
      top.add(MetricKeys.SIMULATED);
      assertThat(doc.fieldNames()).containsExactlyInAnyOrderElementsOf(top);
      JsonObject result = doc.getJsonArray(MetricKeys.RESULTS).getJsonObject(0);
      assertThat(result.fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.RESULT);
      assertThat(result.getString(MetricKeys.TEST_NAME)).isEqualTo(benchmark);
      assertThat(result.getJsonObject(MetricKeys.LOAD).getInteger(MetricKeys.LOAD_SEED)).isEqualTo(seed);
      JsonObject metrics = result.getJsonObject(MetricKeys.METRICS);
      assertThat(metrics.fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.metricsOf(benchmark).orElseThrow());
      if (Benchmarks.QUALITY.contains(benchmark)) {
        assertThat(metrics.getDouble(MetricKeys.ACCURACY)).isBetween(0.0, 1.0);
        assertThat(metrics.getInteger(MetricKeys.CORRECT)).isBetween(0, metrics.getInteger(MetricKeys.TOTAL));
      } else {
        MetricsAssertions.distributionsAreOrdered(metrics);
        MetricsAssertions.gpuMemoryWithin(metrics.getJsonObject(MetricKeys.GPU_MEMORY), 80 * 1024);
      }
      if (benchmark.equals("warmup")) {
        assertThat(metrics.getInteger(MetricKeys.STABILIZATION_ITERATION))
            .isBetween(1, metrics.getInteger(MetricKeys.TOTAL_ITERATIONS));
      }
      assertThat(doc.getString(MetricKeys.TIMESTAMP)).isEqualTo("2026-11-22T10:00:00.000Z");
    }
  }

  @Test
  void gpuMemoryFollowsTheAgentsCardForEveryEngine() {
    for (String engine : List.of("vllm", "tgi", "llama_cpp", "ollama")) {
      for (int seed = 1; seed <= 10; seed++) {
        JsonObject doc = plan(engine, "memory", "NVIDIA RTX 4090 24GB", 1, seed).document();
        JsonObject gpu = doc.getJsonArray(MetricKeys.RESULTS).getJsonObject(0).getJsonObject(MetricKeys.METRICS)
            .getJsonObject(MetricKeys.GPU_MEMORY);
        MetricsAssertions.gpuMemoryWithin(gpu, 24 * 1024);
        assertThat(doc.getJsonObject(MetricKeys.SYSTEM_INFO).getJsonObject(MetricKeys.GPU).getInteger(MetricKeys.VRAM_GB))
            .isEqualTo(24);
      }
    }
  }

  @Test
  void anAgentWithoutAGpuReportsNullMemoryWithAReason() {
    JsonObject metrics = plan("llama_cpp", "throughput", "none", 0, 3).document().getJsonArray(MetricKeys.RESULTS)
        .getJsonObject(0).getJsonObject(MetricKeys.METRICS);
    JsonObject gpu = metrics.getJsonObject(MetricKeys.GPU_MEMORY);
    assertThat(gpu.getValue(MetricKeys.PEAK_MEMORY_MB)).isNull();
    assertThat(gpu.getValue(MetricKeys.AVG_MEMORY_MB)).isNull();
    assertThat(gpu.getValue(MetricKeys.VRAM_UTILIZATION_PCT)).isNull();
    assertThat(gpu.getJsonArray(MetricKeys.SAMPLES)).isEmpty();
    assertThat(gpu.getString(MetricKeys.GPU_MEMORY_REASON)).isNotBlank();
  }

  @ParameterizedTest
  @MethodSource("benchmarks")
  void theLogTellsTheRunInOrderWithTheResultsFigures(String benchmark) {
    SimulationPlan plan = plan("vllm", benchmark, "NVIDIA H100 80GB HBM3", 2, 7);
    List<String> lines = plan.lines();

    assertThat(lines).hasSizeGreaterThanOrEqualTo(10);
    assertThat(lines.get(1)).startsWith("Checking image vllm/vllm-openai:latest");
    assertThat(lines.get(2)).startsWith("Starting container: docker run -d --name kitt-1795341600 --network host")
        .contains("--gpus all", "--ipc=host", "-v /models/llama-3-8b:/models vllm/vllm-openai:latest",
            "--port 8000");
    assertThat(lines.get(4)).contains("GET http://127.0.0.1:8000/health");
    assertThat(lines.get(lines.size() - 2)).isEqualTo("Stopping and removing container kitt-1795341600");
    JsonObject metrics = plan.document().getJsonArray(MetricKeys.RESULTS).getJsonObject(0)
        .getJsonObject(MetricKeys.METRICS);
    String summary = lines.stream().filter(l -> l.startsWith("Summary: " + benchmark + " passed")).findFirst()
        .orElseThrow();
    if (Benchmarks.QUALITY.contains(benchmark)) {
      assertThat(summary).contains(metrics.getInteger(MetricKeys.CORRECT) + "/" + metrics.getInteger(MetricKeys.TOTAL));
    } else {
      assertThat(summary).contains(String.format(java.util.Locale.ROOT, "%.2f tok/s",
          metrics.getDouble(MetricKeys.OUTPUT_TOKEN_THROUGHPUT)));
      assertThat(lines).filteredOn(l -> l.startsWith("[" + benchmark + "] iteration")).hasSize(RunLog.PROGRESS_LINES);
    }
  }

  @Test
  void sameSeedSamePlan() {
    assertThat(plan("tgi", "latency", "NVIDIA A100-SXM4-40GB", 1, 11).document())
        .isEqualTo(plan("tgi", "latency", "NVIDIA A100-SXM4-40GB", 1, 11).document());
  }

  @Test
  void aBiggerGpuIsFasterAndABiggerModelSlower() {
    double h100 = tps(plan("vllm", "throughput", "NVIDIA H100 80GB HBM3", 1, 5));
    double l4 = tps(plan("vllm", "throughput", "NVIDIA L4 24GB", 1, 5));
    assertThat(h100).isGreaterThan(l4 * 2);
  }

  private static double tps(SimulationPlan plan) {
    return plan.document().getJsonArray(MetricKeys.RESULTS).getJsonObject(0).getJsonObject(MetricKeys.METRICS)
        .getDouble(MetricKeys.OUTPUT_TOKEN_THROUGHPUT);
  }
}
