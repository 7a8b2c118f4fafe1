package dev.svc.bench.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A benchmark's runs combined into one entry: means with their intervals, summed counts, every run kept. */
class RepeatedBenchmarkTest {

  @Test
  void figuresAreMeansWithIntervalsCountsAreSummedAndEachRunIsKept() {
    BenchmarkOutcome combined = RepeatedBenchmark.combine(List.of(run(1, 10, 40.0, "usage", null),
        run(2, 12, 44.0, "usage", null), run(3, 14, 42.0, "usage", null)));

    JsonObject entry = combined.result();
    JsonObject m = entry.getJsonObject(MetricKeys.METRICS);
    assertThat(m.getDouble(MetricKeys.OUTPUT_TOKEN_THROUGHPUT)).isEqualTo(12.0);
    assertThat(m.getJsonObject(MetricKeys.TTFT_MS).getDouble(MetricKeys.P50)).isEqualTo(42.0);
    assertThat(m.getLong(MetricKeys.TOTAL_ITERATIONS)).isEqualTo(60L);
    assertThat(m.getLong(MetricKeys.ERROR_COUNT)).isEqualTo(3L);
    assertThat(m.getDouble(MetricKeys.WINDOW_S)).isEqualTo(6.3);
    assertThat(m.getString(MetricKeys.TOKEN_COUNT_SOURCE)).isEqualTo("usage");
    assertThat(m.getJsonObject(MetricKeys.SLO)).as("settings, not a figure").isEqualTo(new JsonObject().put("ttft_ms", 500));
    assertThat(m.getJsonObject(MetricKeys.GPU_MEMORY).getJsonArray(MetricKeys.SAMPLES))
        .as("lists are the first run's").isEqualTo(new JsonArray().add(new JsonArray().add(0).add(1)));

    JsonObject confidence = entry.getJsonObject(MetricKeys.CONFIDENCE);
    assertThat(confidence.getString(MetricKeys.CONFIDENCE_METHOD)).isEqualTo("student_t");
    assertThat(confidence.getDouble(MetricKeys.CONFIDENCE_LEVEL)).isEqualTo(0.95);
    JsonObject figures = confidence.getJsonObject(MetricKeys.CONFIDENCE_FIGURES);
    assertThat(figures.getJsonObject(MetricKeys.OUTPUT_TOKEN_THROUGHPUT)).isEqualTo(new JsonObject().put("mean", 12.0)
        .put("std", 2.0).put("n", 3).put("low", 7.031).put("high", 16.969));
    assertThat(figures.fieldNames()).contains("ttft_ms.p50", "ttft_ms.p99", "gpu_memory.peak_memory_mb")
        .doesNotContain(MetricKeys.TOTAL_ITERATIONS, MetricKeys.ERROR_COUNT, "slo.ttft_ms");

    assertThat(entry.getInteger(MetricKeys.REPEATS)).isEqualTo(3);
    assertThat(entry.containsKey(MetricKeys.RUN_NUMBER)).as("the entry is no one run").isFalse();
    assertThat(entry.getJsonArray(MetricKeys.REPEAT_RUNS)).hasSize(3);
    assertThat(entry.getJsonArray(MetricKeys.REPEAT_RUNS).getJsonObject(2).getInteger(MetricKeys.RUN_NUMBER)).isEqualTo(3);
    assertThat(entry.getJsonArray(MetricKeys.ERRORS)).containsExactly("timeout");
    assertThat(entry.getBoolean(MetricKeys.VALID)).isTrue();
    assertThat(combined.passed()).isFalse();
    assertThat(combined.valid()).isTrue();
  }

  @Test
  void aBenchmarkIsValidOnlyWhenEveryRunWasAndSaysWhichWereNot() {
    BenchmarkOutcome combined = RepeatedBenchmark.combine(List.of(run(1, 10, 40.0, "usage", null),
        run(2, 12, 44.0, "chunks", "schedule lag p99 12.0 ms")));

    assertThat(combined.valid()).isFalse();
    assertThat(combined.result().getBoolean(MetricKeys.VALID)).isFalse();
    assertThat(combined.result().getString(MetricKeys.INVALID_REASON)).isEqualTo("run 2: schedule lag p99 12.0 ms");
    assertThat(combined.result().getJsonObject(MetricKeys.METRICS).getString(MetricKeys.TOKEN_COUNT_SOURCE))
        .isEqualTo("mixed");
  }

  @Test
  void oneRunIsItsOwnEntry() {
    BenchmarkOutcome once = run(1, 10, 40.0, "usage", null);
    assertThat(RepeatedBenchmark.combine(List.of(once))).isSameAs(once);
  }

  private static BenchmarkOutcome run(int number, double throughput, double ttftP50, String tokenSource, String invalid) {
    JsonObject metrics = new JsonObject().put(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, throughput)
        .put(MetricKeys.TTFT_MS, new JsonObject().put(MetricKeys.P50, ttftP50).put(MetricKeys.P99, ttftP50 * 2))
        .put(MetricKeys.TOTAL_ITERATIONS, 20).put(MetricKeys.ERROR_COUNT, 1).put(MetricKeys.WINDOW_S, 2.1)
        .put(MetricKeys.TOKEN_COUNT_SOURCE, tokenSource).put(MetricKeys.SLO, new JsonObject().put("ttft_ms", 500))
        .put(MetricKeys.GPU_MEMORY, new JsonObject().put(MetricKeys.PEAK_MEMORY_MB, 1000 + number)
            .put(MetricKeys.SAMPLES, new JsonArray().add(new JsonArray().add(0).add(number))));
    JsonObject entry = new JsonObject().put(MetricKeys.TEST_NAME, "throughput").put(MetricKeys.RUN_NUMBER, number)
        .put(MetricKeys.PASSED, false).put(MetricKeys.METRICS, metrics).put(MetricKeys.ERRORS, new JsonArray().add("timeout"))
        .put(MetricKeys.VALID, invalid == null);
    if (invalid != null) {
      entry.put(MetricKeys.INVALID_REASON, invalid);
    }
    return new BenchmarkOutcome(entry, false, invalid == null, List.of());
  }
}
