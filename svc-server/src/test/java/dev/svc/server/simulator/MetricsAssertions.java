package dev.svc.server.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Checks shared by the simulator's tests: what any real performance result must satisfy too. */
final class MetricsAssertions {

  private MetricsAssertions() {
  }

  /** Every distribution has the summary keys, min ≤ p50 ≤ p90 ≤ p95 ≤ p99 ≤ max, and a mean inside. */
  static void distributionsAreOrdered(JsonObject metrics) {
    for (String name : MetricKeys.DISTRIBUTIONS) {
      JsonObject d = metrics.getJsonObject(name);
      assertThat(d.fieldNames()).as(name).containsExactlyInAnyOrderElementsOf(MetricKeys.STATISTICS);
      double previous = Double.NEGATIVE_INFINITY;
      for (String key : MetricKeys.ASCENDING) {
        double value = d.getDouble(key);
        assertThat(value).as(name + "." + key).isPositive().isGreaterThanOrEqualTo(previous);
        previous = value;
      }
      assertThat(d.getDouble(MetricKeys.MEAN)).as(name + ".mean")
          .isBetween(d.getDouble(MetricKeys.MIN), d.getDouble(MetricKeys.MAX));
      assertThat(d.getDouble(MetricKeys.STD)).as(name + ".std").isGreaterThanOrEqualTo(0);
    }
    assertThat(metrics.getDouble(MetricKeys.AVG_TPS)).isPositive();
    assertThat(metrics.getDouble(MetricKeys.OUTPUT_TOKEN_THROUGHPUT)).isPositive();
    assertThat(metrics.getDouble(MetricKeys.REQUEST_THROUGHPUT)).isPositive();
    assertThat(metrics.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isGreaterThanOrEqualTo(
        metrics.getLong(MetricKeys.TOTAL_ITERATIONS));
  }

  /** The GPU memory figures: keys, samples every 100 ms, peak = max sample ≤ the card, average ≤ peak. */
  static void gpuMemoryWithin(JsonObject gpu, long vramMb) {
    assertThat(gpu.fieldNames()).containsExactlyInAnyOrderElementsOf(MetricKeys.GPU_MEMORY_KEYS);
    JsonArray samples = gpu.getJsonArray(MetricKeys.SAMPLES);
    assertThat(samples).isNotEmpty();
    long max = 0;
    for (int i = 0; i < samples.size(); i++) {
      JsonArray sample = samples.getJsonArray(i);
      assertThat(sample).hasSize(2);
      assertThat(sample.getLong(0)).isEqualTo(i * MetricKeys.GPU_SAMPLE_INTERVAL_MS);
      assertThat(sample.getLong(1)).isPositive().isLessThanOrEqualTo(vramMb);
      max = Math.max(max, sample.getLong(1));
    }
    long peak = gpu.getLong(MetricKeys.PEAK_MEMORY_MB);
    assertThat(peak).isEqualTo(max).isLessThanOrEqualTo(vramMb);
    assertThat(gpu.getDouble(MetricKeys.AVG_MEMORY_MB)).isPositive().isLessThanOrEqualTo(peak);
    assertThat(gpu.getDouble(MetricKeys.VRAM_UTILIZATION_PCT)).isBetween(0.0, 100.0)
        .isCloseTo(peak * 100.0 / vramMb, org.assertj.core.data.Offset.offset(0.06));
  }
}
