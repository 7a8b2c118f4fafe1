package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import dev.svc.server.store.StoredJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The few figures of a result a run page shows: per benchmark, throughput, median latencies, peak memory or accuracy. */
final class KeyMetrics {

  private KeyMetrics() {
  }

  /** {@code {"benchmark","label","value"}} maps from a stored result's metrics.json text; empty when unreadable. */
  static List<Map<String, Object>> of(String data) {
    List<Map<String, Object>> out = new ArrayList<>();
    JsonObject doc = StoredJson.object(data);
    if (doc == null || !(doc.getValue(MetricKeys.RESULTS) instanceof JsonArray results)) {
      return out;
    }
    for (Object item : results) {
      if (!(item instanceof JsonObject entry) || !(entry.getValue(MetricKeys.METRICS) instanceof JsonObject m)) {
        continue;
      }
      String benchmark = entry.getString(MetricKeys.TEST_NAME, "");
      add(out, benchmark, "Output tokens/s", m.getValue(MetricKeys.OUTPUT_TOKEN_THROUGHPUT));
      add(out, benchmark, "Average tokens/s", m.getValue(MetricKeys.AVG_TPS));
      add(out, benchmark, "Requests/s", m.getValue(MetricKeys.REQUEST_THROUGHPUT));
      add(out, benchmark, "TTFT p50 (ms)", p50(m, MetricKeys.TTFT_MS));
      add(out, benchmark, "TPOT p50 (ms)", p50(m, MetricKeys.TPOT_MS));
      add(out, benchmark, "E2E p50 (ms)", p50(m, MetricKeys.E2E_MS));
      if (m.getValue(MetricKeys.GPU_MEMORY) instanceof JsonObject gpu) {
        add(out, benchmark, "Peak GPU memory (MB)", gpu.getValue(MetricKeys.PEAK_MEMORY_MB));
      }
      if (m.getValue(MetricKeys.ACCURACY) instanceof Number accuracy) {
        add(out, benchmark, "Accuracy (%)", accuracy.doubleValue() * 100);
      }
    }
    return out;
  }

  private static Object p50(JsonObject metrics, String key) {
    return metrics.getValue(key) instanceof JsonObject summary ? summary.getValue(MetricKeys.P50) : null;
  }

  private static void add(List<Map<String, Object>> out, String benchmark, String label, Object value) {
    if (!(value instanceof Number n) || Double.isNaN(n.doubleValue()) || Double.isInfinite(n.doubleValue())) {
      return;
    }
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("benchmark", benchmark);
    row.put("label", label);
    row.put("value", BigDecimal.valueOf(n.doubleValue()).setScale(2, RoundingMode.HALF_UP).stripTrailingZeros()
        .toPlainString());
    out.add(row);
  }

}
