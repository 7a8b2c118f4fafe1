package dev.svc.server.web;

import dev.svc.core.metrics.Confidence;
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
 * A repeated benchmark's value carries the half-width of its 95 % interval, and a value whose
 * difference from the row's best is within the noise (Welch's test over both results' runs) is
 * marked so: such a difference is no evidence that one is better.
 */
final class CompareTable {

  /**
   * One key metric: its definition key, the label suffix (a statistic), how to read it from a
   * benchmark, and the figure its interval is recorded under.
   */
  private record KeyMetric(String key, String statistic, Function<BenchmarkMetrics, Double> read,
      Function<BenchmarkMetrics, String> figure) {

    KeyMetric(String key, String statistic, Function<BenchmarkMetrics, Double> read) {
      this(key, statistic, read, b -> statistic.isEmpty() ? key : key + "." + statistic);
    }
  }

  private static final List<KeyMetric> KEY_METRICS = keyMetrics();

  private CompareTable() {
  }

  private static List<KeyMetric> keyMetrics() {
    List<KeyMetric> out = new ArrayList<>();
    out.add(new KeyMetric(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, "", BenchmarkMetrics::tokenThroughput,
        BenchmarkMetrics::tokenThroughputKey));
    out.add(new KeyMetric(MetricKeys.REQUEST_THROUGHPUT, "", b -> b.number(MetricKeys.REQUEST_THROUGHPUT)));
    for (String metric : ResultCharts.LATENCY_METRICS) {
      for (String stat : List.of(MetricKeys.P50, MetricKeys.P90, MetricKeys.P99)) {
        out.add(new KeyMetric(metric, stat, b -> b.statistic(metric, stat)));
      }
    }
    out.add(new KeyMetric(MetricKeys.PEAK_MEMORY_MB, "", b -> b.memory() == null ? b.number(MetricKeys.PEAK_MEMORY_MB)
        : b.memory().peakMb(), b -> b.memory() == null ? MetricKeys.PEAK_MEMORY_MB
        : MetricKeys.GPU_MEMORY + "." + MetricKeys.PEAK_MEMORY_MB));
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
        List<BenchmarkMetrics> found = results.stream().map(r -> find(r, benchmark, metric)).toList();
        List<Double> values = found.stream().map(b -> b == null ? null : metric.read().apply(b)).toList();
        if (values.stream().allMatch(Objects::isNull)) {
          continue;
        }
        List<Confidence> intervals = found.stream()
            .map(b -> b == null || metric.figure().apply(b) == null ? null : b.interval(metric.figure().apply(b)))
            .toList();
        rows.add(row(benchmark, metric, values, intervals));
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

  /** The first benchmark of that name in {@code r} that has the metric; null when none has. */
  private static BenchmarkMetrics find(ResultDocument r, String benchmark, KeyMetric metric) {
    for (BenchmarkMetrics b : r.benchmarks()) {
      if (b.name().equals(benchmark) && metric.read().apply(b) != null) {
        return b;
      }
    }
    return null;
  }

  private static Map<String, Object> row(String benchmark, KeyMetric metric, List<Double> values,
      List<Confidence> intervals) {
    MetricDefinitions.Better better = MetricDefinitions.better(metric.key());
    Double best = best(values, better);
    int bestAt = best == null ? -1 : values.indexOf(best);
    List<Map<String, Object>> cells = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      Double v = values.get(i);
      Confidence interval = intervals.get(i);
      Map<String, Object> cell = new LinkedHashMap<>();
      cell.put("value", DisplayNumbers.withInterval(v, interval));
      cell.put("raw", v);
      boolean isBest = best != null && v != null && v.doubleValue() == best.doubleValue();
      cell.put("best", isBest);
      cell.put("noise", !isBest && bestAt >= 0 && v != null && Confidence.withinNoise(interval, intervals.get(bestAt)));
      cell.put("interval", interval);
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

  static final List<String> CSV_HEADER = List.of("benchmark", "metric", "statistic", "unit", "better", "column",
      "result_id", "value", "ci95_low", "ci95_high", "ci_n", "best", "within_noise_of_best");

  /**
   * The table as CSV (RFC 4180, as {@link ResultCsv}), one row per benchmark, metric and result:
   * its value, its interval where it was repeated, whether it is the row's best, and whether its
   * difference from the best is within the noise.
   */
  static String csv(List<ResultDocument> results) {
    StringBuilder out = new StringBuilder();
    ResultCsv.line(out, CSV_HEADER);
    for (Map<String, Object> row : rows(results)) {
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> cells = (List<Map<String, Object>>) row.get("cells");
      for (int i = 0; i < cells.size(); i++) {
        Map<String, Object> cell = cells.get(i);
        if (cell.get("raw") == null) {
          continue;
        }
        Confidence interval = (Confidence) cell.get("interval");
        boolean has = interval != null && interval.low() != null;
        ResultCsv.line(out, List.of((String) row.get("benchmark"), (String) row.get("key"), (String) row.get("statistic"),
            (String) row.get("unit"), (String) row.get("better"), "#" + (i + 1), results.get(i).id(),
            ResultCsv.value(cell.get("raw")), has ? ResultCsv.value(interval.low()) : "",
            has ? ResultCsv.value(interval.high()) : "", interval == null ? "" : String.valueOf(interval.n()),
            String.valueOf(cell.get("best")), String.valueOf(cell.get("noise"))));
      }
    }
    return out.toString();
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
