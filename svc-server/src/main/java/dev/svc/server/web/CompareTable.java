package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The key metrics of several results side by side, one row per benchmark and metric, with the best
 * value of a row marked where the metric has a "better" direction and at least two results have it.
 */
final class CompareTable {

  /** One key metric: its definition key, the label suffix (a statistic) and how to read it from a benchmark. */
  private record KeyMetric(String key, String statistic, Function<BenchmarkMetrics, Double> read) {
  }

  private static final List<KeyMetric> KEY_METRICS = keyMetrics();

  private CompareTable() {
  }

  private static List<KeyMetric> keyMetrics() {
    List<KeyMetric> out = new ArrayList<>();
    out.add(new KeyMetric(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, "", BenchmarkMetrics::tokenThroughput));
    out.add(new KeyMetric(MetricKeys.REQUEST_THROUGHPUT, "", b -> b.number(MetricKeys.REQUEST_THROUGHPUT)));
    for (String metric : ResultCharts.LATENCY_METRICS) {
      for (String stat : List.of(MetricKeys.P50, MetricKeys.P90, MetricKeys.P99)) {
        out.add(new KeyMetric(metric, stat, b -> b.statistic(metric, stat)));
      }
    }
    out.add(new KeyMetric(MetricKeys.PEAK_MEMORY_MB, "", b -> b.memory() == null ? b.number(MetricKeys.PEAK_MEMORY_MB)
        : b.memory().peakMb()));
    out.add(new KeyMetric(MetricKeys.ACCURACY, "", b -> b.number(MetricKeys.ACCURACY)));
    return List.copyOf(out);
  }

  /** Rows {benchmark, key, statistic, label, unit, better, cells: [{value, best}]}, benchmarks as first seen. */
  static List<Map<String, Object>> rows(List<ResultDocument> results) {
    Set<String> benchmarks = new LinkedHashSet<>();
    results.forEach(r -> r.benchmarks().forEach(b -> benchmarks.add(b.name())));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (String benchmark : benchmarks) {
      for (KeyMetric metric : KEY_METRICS) {
        List<Double> values = results.stream().map(r -> value(r, benchmark, metric)).toList();
        if (values.stream().allMatch(Objects::isNull)) {
          continue;
        }
        rows.add(row(benchmark, metric, values));
      }
    }
    return rows;
  }

  /** The keys of the metrics the table shows, for the formulas section. */
  static Set<String> shownKeys(List<Map<String, Object>> rows) {
    Set<String> keys = new LinkedHashSet<>();
    rows.forEach(r -> keys.add((String) r.get("key")));
    return keys;
  }

  /** The statistics (p50 …) the table shows, for the formulas section. */
  static Set<String> shownStatistics(List<Map<String, Object>> rows) {
    Set<String> stats = new LinkedHashSet<>();
    rows.stream().map(r -> (String) r.get("statistic")).filter(s -> !s.isEmpty()).forEach(stats::add);
    return stats;
  }

  private static Double value(ResultDocument r, String benchmark, KeyMetric metric) {
    for (BenchmarkMetrics b : r.benchmarks()) {
      if (b.name().equals(benchmark)) {
        Double v = metric.read().apply(b);
        if (v != null) {
          return v;
        }
      }
    }
    return null;
  }

  private static Map<String, Object> row(String benchmark, KeyMetric metric, List<Double> values) {
    MetricDefinitions.Better better = MetricDefinitions.better(metric.key());
    Double best = best(values, better);
    List<Map<String, Object>> cells = new ArrayList<>();
    for (Double v : values) {
      Map<String, Object> cell = new LinkedHashMap<>();
      cell.put("value", DisplayNumbers.format(v));
      cell.put("raw", v);
      cell.put("best", best != null && v != null && v.doubleValue() == best.doubleValue());
      cells.add(cell);
    }
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("benchmark", benchmark);
    row.put("key", metric.key());
    row.put("statistic", metric.statistic());
    String label = metric.statistic().isEmpty() ? MetricDefinitions.label(metric.key())
        : ResultCharts.shortName(metric.key()) + " " + metric.statistic();
    row.put("label", label);
    row.put("unit", MetricDefinitions.unit(metric.key()));
    row.put("better", better == MetricDefinitions.Better.HIGHER ? "higher" : better == MetricDefinitions.Better.LOWER
        ? "lower" : "");
    row.put("cells", cells);
    return row;
  }

  /** The best of at least two present values, or null when there is no such thing (or all are equal). */
  private static Double best(List<Double> values, MetricDefinitions.Better better) {
    List<Double> present = values.stream().filter(Objects::nonNull).toList();
    if (better == MetricDefinitions.Better.NONE || present.size() < 2) {
      return null;
    }
    double max = present.stream().max(Double::compare).orElseThrow();
    double min = present.stream().min(Double::compare).orElseThrow();
    if (max == min) {
      return null;
    }
    return better == MetricDefinitions.Better.HIGHER ? max : min;
  }
}
