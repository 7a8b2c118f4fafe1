package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The chart specifications the result pages embed as JSON for /static/results.js: per chart a
 * type, its axes and its series (values per category label, or [x, y] points). Charts without
 * data are left out, so the page draws a canvas only where there is something to draw.
 */
final class ResultCharts {

  static final String LATENCY = "latency";
  static final String THROUGHPUT = "throughput";
  static final String GPU_MEMORY = "gpu_memory";
  static final String ACCURACY = "accuracy";
  static final String SWEEP = "sweep";

  /** The latency distributions charted, in legend order. */
  static final List<String> LATENCY_METRICS = List.of(MetricKeys.TTFT_MS, MetricKeys.TPOT_MS, MetricKeys.E2E_MS,
      MetricDefinitions.LEGACY_LATENCY);

  /** At most this many points per GPU memory series (a 10-minute trace has 6,000 samples). */
  static final int MAX_MEMORY_POINTS = 1_000;

  /** Above this ratio between the largest and smallest latency a log axis keeps TPOT and E2E readable together. */
  private static final double LOG_SPAN = 30;

  private ResultCharts() {
  }

  /** The charts of one result: latency percentiles, throughput, load sweeps, accuracy, GPU memory over time. */
  static JsonObject detail(List<BenchmarkMetrics> benchmarks) {
    JsonObject charts = new JsonObject();
    latency(benchmarks).ifPresent(c -> charts.put(LATENCY, c));
    throughput(benchmarks).ifPresent(c -> charts.put(THROUGHPUT, c));
    sweep(benchmarks).ifPresent(c -> charts.put(SWEEP, c));
    accuracy(benchmarks).ifPresent(c -> charts.put(ACCURACY, c));
    memory(benchmarks).ifPresent(c -> charts.put(GPU_MEMORY, c));
    return charts;
  }

  /** The overlaid charts of several results: one series per result. */
  static JsonObject compare(List<ResultDocument> results, List<String> labels) {
    JsonObject charts = new JsonObject();
    compareLatency(results, labels).ifPresent(c -> charts.put(LATENCY, c));
    compareByBenchmark(results, labels, THROUGHPUT).ifPresent(c -> charts.put(THROUGHPUT, c));
    compareByBenchmark(results, labels, ACCURACY).ifPresent(c -> charts.put(ACCURACY, c));
    compareMemory(results, labels).ifPresent(c -> charts.put(GPU_MEMORY, c));
    return charts;
  }

  /** Which charts a spec holds, for the template's {@code charts.latency} … tests. */
  static Map<String, Boolean> present(JsonObject charts) {
    Map<String, Boolean> out = new LinkedHashMap<>();
    charts.fieldNames().forEach(name -> out.put(name, true));
    return out;
  }

  private static Optional<JsonObject> latency(List<BenchmarkMetrics> benchmarks) {
    List<String> stats = percentiles(benchmarks);
    long withLatency = benchmarks.stream().filter(ResultCharts::hasLatency).count();
    JsonArray series = new JsonArray();
    for (BenchmarkMetrics b : benchmarks) {
      for (String metric : LATENCY_METRICS) {
        if (!b.distributions().containsKey(metric)) {
          continue;
        }
        JsonArray values = new JsonArray();
        stats.forEach(s -> values.add(b.statistic(metric, s)));
        String label = shortName(metric) + (withLatency > 1 ? " · " + b.name() : "");
        series.add(new JsonObject().put("label", label).put("metric", metric).put("benchmark", b.name())
            .put("values", values));
      }
    }
    if (series.isEmpty() || stats.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(categoryChart("line", stats, series, "ms", "percentile"));
  }

  private static Optional<JsonObject> throughput(List<BenchmarkMetrics> benchmarks) {
    List<String> labels = new ArrayList<>();
    JsonArray tokens = new JsonArray();
    JsonArray requests = new JsonArray();
    boolean anyRequests = false;
    for (BenchmarkMetrics b : benchmarks) {
      Double t = b.tokenThroughput();
      Double r = b.number(MetricKeys.REQUEST_THROUGHPUT);
      if (t == null && r == null) {
        continue;
      }
      labels.add(b.name());
      tokens.add(t);
      requests.add(r);
      anyRequests |= r != null;
    }
    if (labels.isEmpty()) {
      return Optional.empty();
    }
    JsonArray series = new JsonArray()
        .add(new JsonObject().put("label", "Output token throughput (tokens/s)").put("values", tokens));
    JsonObject chart = categoryChart("bar", labels, series, "tokens/s", "benchmark");
    if (anyRequests) {
      series.add(new JsonObject().put("label", "Request throughput (requests/s)").put("values", requests)
          .put("axis", "y1"));
      chart.put("y1", new JsonObject().put("title", "requests/s"));
    }
    return Optional.of(chart);
  }

  /**
   * Throughput against latency over the steps of each sweep, joined in the order run: x the output
   * token throughput (the request throughput when no step has one), TTFT p50 on the left axis and
   * E2E p50 on the right. Each point carries its step's load and whether the step is invalid.
   */
  private static Optional<JsonObject> sweep(List<BenchmarkMetrics> benchmarks) {
    List<BenchmarkMetrics> swept = benchmarks.stream()
        .filter(b -> b.sweep() != null && !b.sweep().steps().isEmpty()).toList();
    boolean tokens = swept.stream().flatMap(b -> b.sweep().steps().stream())
        .anyMatch(step -> step.outputTokenThroughput() != null);
    Function<LoadSweep.Step, Double> x = tokens ? LoadSweep.Step::outputTokenThroughput
        : LoadSweep.Step::requestThroughput;
    JsonArray ttft = new JsonArray();
    JsonArray e2e = new JsonArray();
    for (BenchmarkMetrics b : swept) {
      String suffix = swept.size() > 1 ? " · " + b.name() : "";
      sweepSeries(b, MetricKeys.TTFT_MS, x, suffix).ifPresent(ttft::add);
      sweepSeries(b, MetricKeys.E2E_MS, x, suffix).ifPresent(e2e::add);
    }
    if (ttft.isEmpty() && e2e.isEmpty()) {
      return Optional.empty();
    }
    JsonObject chart = new JsonObject().put("type", "line").put("markers", true)
        .put("x", new JsonObject().put("kind", "linear").put("title", tokens ? "output tokens/s" : "requests/s"));
    if (ttft.isEmpty()) {
      return Optional.of(chart.put("y", new JsonObject().put("title", "E2E p50 (ms)")).put("series", e2e));
    }
    chart.put("y", new JsonObject().put("title", "TTFT p50 (ms)"));
    if (!e2e.isEmpty()) {
      e2e.forEach(series -> ((JsonObject) series).put("axis", "y1"));
      chart.put("y1", new JsonObject().put("title", "E2E p50 (ms)"));
    }
    return Optional.of(chart.put("series", ttft.addAll(e2e)));
  }

  /** One curve of a sweep: [x, p50 of the metric] per step that has both, with the steps' loads and validity. */
  private static Optional<JsonObject> sweepSeries(BenchmarkMetrics b, String metric,
      Function<LoadSweep.Step, Double> x, String suffix) {
    JsonArray points = new JsonArray();
    JsonArray loads = new JsonArray();
    JsonArray invalid = new JsonArray();
    for (LoadSweep.Step step : b.sweep().steps()) {
      Double xv = x.apply(step);
      Double yv = step.statistic(metric, MetricKeys.P50);
      if (xv != null && yv != null) {
        points.add(new JsonArray().add(xv).add(yv));
        loads.add(step.load());
        invalid.add(step.invalid());
      }
    }
    if (points.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new JsonObject().put("label", shortName(metric) + " p50" + suffix).put("metric", metric)
        .put("benchmark", b.name()).put("points", points).put("steps", loads).put("invalid", invalid));
  }

  private static Optional<JsonObject> accuracy(List<BenchmarkMetrics> benchmarks) {
    List<String> labels = new ArrayList<>();
    JsonArray values = new JsonArray();
    for (BenchmarkMetrics b : benchmarks) {
      Double a = b.number(MetricKeys.ACCURACY);
      if (a != null) {
        labels.add(b.name());
        values.add(a);
      }
    }
    if (labels.isEmpty()) {
      return Optional.empty();
    }
    JsonObject chart = categoryChart("bar", labels,
        new JsonArray().add(new JsonObject().put("label", "Accuracy").put("values", values)), "accuracy (0..1)",
        "benchmark");
    chart.getJsonObject("y").put("min", 0).put("max", 1);
    return Optional.of(chart);
  }

  private static Optional<JsonObject> memory(List<BenchmarkMetrics> benchmarks) {
    JsonArray series = new JsonArray();
    for (BenchmarkMetrics b : benchmarks) {
      if (b.hasSamples()) {
        series.add(new JsonObject().put("label", b.name())
            .put("points", downsample(b.memory().samples(), MAX_MEMORY_POINTS)));
      }
    }
    return series.isEmpty() ? Optional.empty() : Optional.of(timeChart(series));
  }

  private static Optional<JsonObject> compareLatency(List<ResultDocument> results, List<String> names) {
    List<String> stats = new ArrayList<>(new LinkedHashSet<>(results.stream()
        .flatMap(r -> percentiles(r.benchmarks()).stream()).toList()));
    stats.sort(ResultCharts::byStatistic);
    List<String> labels = new ArrayList<>();
    List<String[]> cells = new ArrayList<>();
    for (String metric : LATENCY_METRICS) {
      for (String stat : stats) {
        if (results.stream().anyMatch(r -> firstStatistic(r, metric, stat) != null)) {
          labels.add(shortName(metric) + " " + stat);
          cells.add(new String[] {metric, stat});
        }
      }
    }
    if (labels.isEmpty()) {
      return Optional.empty();
    }
    JsonArray series = new JsonArray();
    for (int i = 0; i < results.size(); i++) {
      JsonArray values = new JsonArray();
      for (String[] cell : cells) {
        values.add(firstStatistic(results.get(i), cell[0], cell[1]));
      }
      series.add(new JsonObject().put("label", names.get(i)).put("values", values));
    }
    return Optional.of(categoryChart("bar", labels, series, "ms", "metric"));
  }

  private static Optional<JsonObject> compareByBenchmark(List<ResultDocument> results, List<String> names,
      String kind) {
    Set<String> benchmarks = new LinkedHashSet<>();
    for (ResultDocument r : results) {
      for (BenchmarkMetrics b : r.benchmarks()) {
        if (value(b, kind) != null) {
          benchmarks.add(b.name());
        }
      }
    }
    if (benchmarks.isEmpty()) {
      return Optional.empty();
    }
    JsonArray series = new JsonArray();
    for (int i = 0; i < results.size(); i++) {
      JsonArray values = new JsonArray();
      for (String name : benchmarks) {
        values.add(results.get(i).benchmarks().stream().filter(b -> b.name().equals(name))
            .map(b -> value(b, kind)).filter(v -> v != null).findFirst().orElse(null));
      }
      series.add(new JsonObject().put("label", names.get(i)).put("values", values));
    }
    boolean accuracy = kind.equals(ACCURACY);
    JsonObject chart = categoryChart("bar", new ArrayList<>(benchmarks), series,
        accuracy ? "accuracy (0..1)" : "output tokens/s", "benchmark");
    if (accuracy) {
      chart.getJsonObject("y").put("min", 0).put("max", 1);
    }
    return Optional.of(chart);
  }

  private static Optional<JsonObject> compareMemory(List<ResultDocument> results, List<String> names) {
    JsonArray series = new JsonArray();
    for (int i = 0; i < results.size(); i++) {
      for (BenchmarkMetrics b : results.get(i).benchmarks()) {
        if (b.hasSamples()) {
          series.add(new JsonObject().put("label", names.get(i) + " (" + b.name() + ")")
              .put("points", downsample(b.memory().samples(), MAX_MEMORY_POINTS)));
          break;
        }
      }
    }
    return series.isEmpty() ? Optional.empty() : Optional.of(timeChart(series));
  }

  private static Double value(BenchmarkMetrics b, String kind) {
    return kind.equals(ACCURACY) ? b.number(MetricKeys.ACCURACY) : b.tokenThroughput();
  }

  private static Double firstStatistic(ResultDocument r, String metric, String stat) {
    for (BenchmarkMetrics b : r.benchmarks()) {
      Double v = b.statistic(metric, stat);
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private static boolean hasLatency(BenchmarkMetrics b) {
    return LATENCY_METRICS.stream().anyMatch(b.distributions()::containsKey);
  }

  /** The percentile statistics (p50, p90 …) the latency distributions carry, lowest first; the mean when none. */
  static List<String> percentiles(List<BenchmarkMetrics> benchmarks) {
    Set<String> found = new LinkedHashSet<>();
    boolean mean = false;
    for (BenchmarkMetrics b : benchmarks) {
      for (String metric : LATENCY_METRICS) {
        Map<String, Double> d = b.distributions().get(metric);
        if (d == null) {
          continue;
        }
        for (String stat : d.keySet()) {
          if (MetricDefinitions.percentileRank(stat) >= 0) {
            found.add(stat);
          }
          mean |= stat.equals(MetricKeys.MEAN);
        }
      }
    }
    List<String> out = new ArrayList<>(found);
    out.sort(ResultCharts::byStatistic);
    if (out.isEmpty() && mean) {
      out.add(MetricKeys.MEAN);
    }
    return out;
  }

  private static int byStatistic(String a, String b) {
    return Integer.compare(MetricDefinitions.percentileRank(a), MetricDefinitions.percentileRank(b));
  }

  static String shortName(String metric) {
    switch (metric) {
      case MetricKeys.TTFT_MS:
        return "TTFT";
      case MetricKeys.TPOT_MS:
        return "TPOT";
      case MetricKeys.E2E_MS:
        return "E2E";
      case MetricKeys.ICG_MS:
        return "ICG";
      default:
        return MetricDefinitions.label(metric);
    }
  }

  private static JsonObject categoryChart(String type, List<String> labels, JsonArray series, String yTitle,
      String xTitle) {
    JsonObject y = new JsonObject().put("title", yTitle);
    if (spansOrders(series)) {
      y.put("log", true).put("title", yTitle + " (log scale)");
    }
    return new JsonObject().put("type", type)
        .put("x", new JsonObject().put("kind", "category").put("labels", new JsonArray(labels)).put("title", xTitle))
        .put("y", y).put("series", series);
  }

  private static JsonObject timeChart(JsonArray series) {
    return new JsonObject().put("type", "line")
        .put("x", new JsonObject().put("kind", "linear").put("title", "time (s)"))
        .put("y", new JsonObject().put("title", "GPU memory used (MB)")).put("series", series);
  }

  /** Whether the positive values of the left-axis series span more than {@link #LOG_SPAN}. */
  private static boolean spansOrders(JsonArray series) {
    double min = Double.MAX_VALUE;
    double max = 0;
    for (Object o : series) {
      JsonObject s = (JsonObject) o;
      if (s.containsKey("axis")) {
        continue;
      }
      for (Object v : s.getJsonArray("values")) {
        if (v instanceof Number n && n.doubleValue() > 0) {
          min = Math.min(min, n.doubleValue());
          max = Math.max(max, n.doubleValue());
        }
      }
    }
    return max > 0 && max / min > LOG_SPAN;
  }

  /**
   * {@code [t_s, used_mb]} points of a memory trace; beyond {@code max} points every bucket of
   * samples keeps its lowest and highest, so peaks survive the thinning.
   */
  static JsonArray downsample(List<double[]> samples, int max) {
    JsonArray points = new JsonArray();
    if (samples.size() <= max) {
      samples.forEach(s -> points.add(point(s)));
      return points;
    }
    int buckets = Math.max(1, max / 2);
    double size = (double) samples.size() / buckets;
    for (int b = 0; b < buckets; b++) {
      int from = (int) Math.floor(b * size);
      int to = Math.min(samples.size(), (int) Math.floor((b + 1) * size));
      if (from >= to) {
        continue;
      }
      int low = from;
      int high = from;
      for (int i = from; i < to; i++) {
        if (samples.get(i)[1] < samples.get(low)[1]) {
          low = i;
        }
        if (samples.get(i)[1] > samples.get(high)[1]) {
          high = i;
        }
      }
      points.add(point(samples.get(Math.min(low, high))));
      if (low != high) {
        points.add(point(samples.get(Math.max(low, high))));
      }
    }
    return points;
  }

  private static JsonArray point(double[] sample) {
    return new JsonArray().add(sample[0] / 1000.0).add(sample[1]);
  }
}
