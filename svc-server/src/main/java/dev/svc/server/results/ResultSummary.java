package dev.svc.server.results;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What lists show of a result, computed once when it is stored: a small JSON object in the shape of
 * a metrics.json, so that code reading a document reads a summary the same way. Lists (the API's,
 * the dashboard's, the export's selection) read this and never the whole document, which can be
 * many megabytes.
 *
 * <pre>{"simulated": false, "valid": true, "total_benchmarks": 3,
 *  "results": [{"test_name": "throughput", "passed": true,
 *               "metrics": {"output_token_throughput": 1459.2, "request_throughput": 5.7,
 *                           "ttft_ms": {"p50": 41.0}, "tpot_ms": {"p50": 9.1}, "e2e_ms": {"p50": 2400.5},
 *                           "gpu_memory": {"peak_memory_mb": 20110}}}]}</pre>
 *
 * Per benchmark: its name, whether it passed and its headline figures where it has them (the ones a
 * run page shows: output token throughput or the older avg_tps, request throughput, the median
 * TTFT, TPOT and E2E, peak GPU memory, accuracy). At most {@link #MAX_BENCHMARKS} benchmarks.
 */
public final class ResultSummary {

  /** Benchmarks a summary lists; a suite has about ten. */
  public static final int MAX_BENCHMARKS = 32;
  /** Longest benchmark name kept. */
  static final int MAX_NAME = 128;

  private static final List<String> SCALARS = List.of(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, MetricKeys.AVG_TPS,
      MetricKeys.REQUEST_THROUGHPUT, MetricKeys.ACCURACY);
  private static final List<String> MEDIANS = List.of(MetricKeys.TTFT_MS, MetricKeys.TPOT_MS, MetricKeys.E2E_MS);

  private ResultSummary() {
  }

  /** The summary of a metrics.json document (read tolerantly: odd values are left out, never an error). */
  public static JsonObject of(JsonObject data) {
    JsonObject out = new JsonObject()
        .put(MetricKeys.SIMULATED, Boolean.TRUE.equals(data.getValue(MetricKeys.SIMULATED)));
    if (data.getValue(MetricKeys.VALID) instanceof Boolean valid) {
      out.put(MetricKeys.VALID, valid);
    }
    JsonArray benchmarks = new JsonArray();
    int total = 0;
    if (data.getValue(MetricKeys.RESULTS) instanceof JsonArray entries) {
      for (Object item : entries) {
        if (!(item instanceof JsonObject entry)) {
          continue;
        }
        total++;
        if (benchmarks.size() < MAX_BENCHMARKS) {
          benchmarks.add(benchmark(entry));
        }
      }
    }
    return out.put(MetricKeys.TOTAL_BENCHMARKS, total).put(MetricKeys.RESULTS, benchmarks);
  }

  /** The summary of a row whose stored document cannot be read. */
  public static JsonObject unreadable() {
    return new JsonObject().put("readable", false).put(MetricKeys.SIMULATED, false).put(MetricKeys.TOTAL_BENCHMARKS, 0)
        .put(MetricKeys.RESULTS, new JsonArray());
  }

  private static JsonObject benchmark(JsonObject entry) {
    JsonObject out = new JsonObject();
    if (entry.getValue(MetricKeys.TEST_NAME) instanceof String name) {
      out.put(MetricKeys.TEST_NAME, name.length() > MAX_NAME ? name.substring(0, MAX_NAME) : name);
    }
    if (entry.getValue(MetricKeys.PASSED) instanceof Boolean passed) {
      out.put(MetricKeys.PASSED, passed);
    }
    JsonObject metrics = new JsonObject();
    if (entry.getValue(MetricKeys.METRICS) instanceof JsonObject m) {
      for (String key : SCALARS) {
        number(m.getValue(key)).ifPresent(n -> metrics.put(key, n));
      }
      for (String key : MEDIANS) {
        if (m.getValue(key) instanceof JsonObject summary) {
          number(summary.getValue(MetricKeys.P50)).ifPresent(n -> metrics.put(key, new JsonObject().put(MetricKeys.P50, n)));
        }
      }
      if (m.getValue(MetricKeys.GPU_MEMORY) instanceof JsonObject gpu) {
        number(gpu.getValue(MetricKeys.PEAK_MEMORY_MB)).ifPresent(n -> metrics.put(MetricKeys.GPU_MEMORY,
            new JsonObject().put(MetricKeys.PEAK_MEMORY_MB, n)));
      }
    }
    return out.put(MetricKeys.METRICS, metrics);
  }

  private static java.util.Optional<Number> number(Object value) {
    return value instanceof Number n && Double.isFinite(n.doubleValue()) ? java.util.Optional.of(n)
        : java.util.Optional.empty();
  }
}
