package dev.svc.server.http;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.TreeMap;

/**
 * Flattens the numeric metrics of a result to {@code benchmark.metric[.stat]} names for side-by-side
 * comparison; a sweep's steps come under {@code benchmark.sweep.<step>.metric[.stat]}, numbered from 1
 * in the order run, as in the CSV export.
 */
final class MetricFlattener {

  private MetricFlattener() {
  }

  static Map<String, Double> flatten(JsonObject result) {
    Map<String, Double> out = new TreeMap<>();
    JsonArray benchmarks = result.getValue("results") instanceof JsonArray ? result.getJsonArray("results") : new JsonArray();
    for (Object o : benchmarks) {
      if (!(o instanceof JsonObject)) {
        continue;
      }
      JsonObject benchmark = (JsonObject) o;
      Object metrics = benchmark.getValue("metrics");
      if (metrics instanceof JsonObject) {
        walk(String.valueOf(benchmark.getValue("test_name", "benchmark")), (JsonObject) metrics, out, 0);
      }
    }
    return out;
  }

  private static void walk(String prefix, JsonObject node, Map<String, Double> out, int depth) {
    if (depth > 3) {
      return;
    }
    for (String key : node.fieldNames()) {
      Object value = node.getValue(key);
      if (value instanceof Number) {
        out.put(prefix + "." + key, ((Number) value).doubleValue());
      } else if (value instanceof JsonObject) {
        walk(prefix + "." + key, (JsonObject) value, out, depth + 1);
      } else if (value instanceof JsonArray steps && depth == 0 && key.equals(MetricKeys.SWEEP)) {
        for (int i = 0; i < steps.size(); i++) {
          if (steps.getValue(i) instanceof JsonObject step) {
            walk(prefix + "." + key + "." + (i + 1), step, out, depth + 1);
          }
        }
      }
    }
  }
}
