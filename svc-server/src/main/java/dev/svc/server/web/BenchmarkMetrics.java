package dev.svc.server.web;

import dev.svc.core.metrics.Confidence;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One benchmark entry of a metrics.json, read tolerantly (current layout, the older tool's flat
 * keys, simulated documents, missing or odd values): its scalar metrics, its distributions, its GPU
 * memory figures, load, errors and sweep steps. Nothing here throws on a malformed document.
 *
 * @param name the benchmark's {@code test_name}, "benchmark N" when absent
 * @param runNumber the {@code run_number}, null when absent
 * @param passed the benchmark's {@code passed}, null when absent
 * @param scalars metric key (dotted for nested objects) → number, text, boolean or null, in document order
 * @param distributions metric key → statistic → value, e.g. ttft_ms → p50 → 40.1
 * @param memory the {@code gpu_memory} figures, null when the benchmark has none
 * @param load the {@code load} settings as text, in document order
 * @param errors the {@code errors} as text
 * @param sweep the steps of the {@code sweep} load and its note, null when the benchmark ran another load
 * @param invalidReason why the benchmark is {@code "valid": false} ("no reason given" without one), null when it is valid
 * @param repeats how many times the benchmark ran, its figures the means of its runs; null for one run
 * @param confidence dotted figure (e.g. {@code ttft_ms.p50}, {@code gpu_memory.peak_memory_mb}) → the
 *     interval of its mean over the runs; empty for one run
 */
record BenchmarkMetrics(String name, Integer runNumber, Boolean passed, Map<String, Object> scalars,
    Map<String, Map<String, Double>> distributions, Memory memory, Map<String, String> load, List<String> errors,
    LoadSweep sweep, String invalidReason, Integer repeats, Map<String, Confidence> confidence) {

  private static final Pattern STATISTIC = Pattern.compile("mean|min|max|std|p\\d{1,3}");
  private static final int MAX_DEPTH = 3;

  /**
   * The {@code gpu_memory} figures of a benchmark (docs/metrics.md, "GPU memory").
   *
   * @param samples {@code [t_ms, used_mb]} pairs in document order (malformed pairs dropped)
   * @param reason why the figures are null (no GPU), null when they were measured
   */
  record Memory(Double peakMb, Double avgMb, Double utilizationPct, List<double[]> samples, String reason) {
  }

  /** Every benchmark of a document; empty when {@code results} is missing or not a list. */
  static List<BenchmarkMetrics> allOf(JsonObject data) {
    if (!(data.getValue(MetricKeys.RESULTS) instanceof JsonArray results)) {
      return List.of();
    }
    List<BenchmarkMetrics> out = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      if (results.getValue(i) instanceof JsonObject entry) {
        out.add(of(entry, i + 1));
      }
    }
    return List.copyOf(out);
  }

  static BenchmarkMetrics of(JsonObject entry, int position) {
    Object testName = entry.getValue(MetricKeys.TEST_NAME);
    String name = testName instanceof String s && !s.isBlank() ? s : "benchmark " + position;
    Integer run = entry.getValue(MetricKeys.RUN_NUMBER) instanceof Number n ? n.intValue() : null;
    Boolean passed = entry.getValue(MetricKeys.PASSED) instanceof Boolean b ? b : null;
    Map<String, Object> scalars = new LinkedHashMap<>();
    Map<String, Map<String, Double>> distributions = new LinkedHashMap<>();
    Memory memory = null;
    LoadSweep sweep = null;
    if (entry.getValue(MetricKeys.METRICS) instanceof JsonObject metrics) {
      sweep = LoadSweep.of(metrics);
      for (String key : metrics.fieldNames()) {
        Object value = metrics.getValue(key);
        Optional<String> legacyStat = MetricDefinitions.legacyLatencyStatistic(key);
        if (legacyStat.isPresent() && value instanceof Number n) {
          distributions.computeIfAbsent(MetricDefinitions.LEGACY_LATENCY, k -> new LinkedHashMap<>())
              .put(legacyStat.get(), n.doubleValue());
        } else if (key.equals(MetricKeys.GPU_MEMORY) && value instanceof JsonObject gpu) {
          memory = memory(gpu);
        } else if (value instanceof JsonObject nested && isDistribution(nested)) {
          distributions.put(key, distribution(nested));
        } else if (!key.equals(MetricKeys.SWEEP_NOTE) || sweep == null) { // the sweep shows its own note
          scalar(scalars, key, value, 0);
        }
      }
    }
    Integer repeats = entry.getValue(MetricKeys.REPEATS) instanceof Number n && n.intValue() > 1 ? n.intValue() : null;
    return new BenchmarkMetrics(name, run, passed, Collections.unmodifiableMap(scalars),
        Collections.unmodifiableMap(distributions), memory, load(entry.getValue(MetricKeys.LOAD)),
        errors(entry.getValue(MetricKeys.ERRORS)), sweep, invalidReason(entry), repeats, confidence(entry));
  }

  /** The entry's {@code confidence.figures}, the malformed ones left out. */
  private static Map<String, Confidence> confidence(JsonObject entry) {
    Map<String, Confidence> out = new LinkedHashMap<>();
    if (entry.getValue(MetricKeys.CONFIDENCE) instanceof JsonObject confidence
        && confidence.getValue(MetricKeys.CONFIDENCE_FIGURES) instanceof JsonObject figures) {
      for (String figure : figures.fieldNames()) {
        Confidence c = Confidence.fromJson(figures.getValue(figure));
        if (c != null) {
          out.put(figure, c);
        }
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /** The interval of a figure's mean ({@code metric} or {@code metric.statistic}); null when it has none. */
  Confidence interval(String figure) {
    return confidence.get(figure);
  }

  private static String invalidReason(JsonObject entry) {
    if (!Boolean.FALSE.equals(entry.getValue(MetricKeys.VALID))) {
      return null;
    }
    return entry.getValue(MetricKeys.INVALID_REASON) instanceof String reason && !reason.isBlank() ? reason
        : "no reason given";
  }

  /** The value of a scalar metric as a number, or null. */
  Double number(String key) {
    return scalars.get(key) instanceof Number n ? n.doubleValue() : null;
  }

  /** Output token throughput, or the older layout's avg_tps; null when the benchmark has neither. */
  Double tokenThroughput() {
    Double current = number(MetricKeys.OUTPUT_TOKEN_THROUGHPUT);
    return current != null ? current : number(MetricKeys.AVG_TPS);
  }

  /** The key under which {@link #tokenThroughput()} was found, or null. */
  String tokenThroughputKey() {
    return number(MetricKeys.OUTPUT_TOKEN_THROUGHPUT) != null ? MetricKeys.OUTPUT_TOKEN_THROUGHPUT
        : number(MetricKeys.AVG_TPS) != null ? MetricKeys.AVG_TPS : null;
  }

  /** A statistic of a distribution, or null. */
  Double statistic(String metric, String statistic) {
    Map<String, Double> d = distributions.get(metric);
    return d == null ? null : d.get(statistic);
  }

  boolean hasSamples() {
    return memory != null && !memory.samples().isEmpty();
  }

  /** A distribution summary: an object whose keys are all statistics and whose values are numbers or null. */
  static boolean isDistribution(JsonObject node) {
    if (node.isEmpty()) {
      return false;
    }
    for (String key : node.fieldNames()) {
      Object v = node.getValue(key);
      if (!STATISTIC.matcher(key).matches() || !(v == null || v instanceof Number)) {
        return false;
      }
    }
    return true;
  }

  static Map<String, Double> distribution(JsonObject node) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String key : node.fieldNames()) {
      if (node.getValue(key) instanceof Number n) {
        out.put(key, n.doubleValue());
      }
    }
    return Collections.unmodifiableMap(out);
  }

  private static void scalar(Map<String, Object> out, String key, Object value, int depth) {
    if (value == null || value instanceof Number || value instanceof String || value instanceof Boolean) {
      out.put(key, value);
    } else if (value instanceof JsonObject nested && depth < MAX_DEPTH) {
      for (String inner : nested.fieldNames()) {
        scalar(out, key + "." + inner, nested.getValue(inner), depth + 1);
      }
    }
  }

  private static Memory memory(JsonObject gpu) {
    List<double[]> samples = new ArrayList<>();
    if (gpu.getValue(MetricKeys.SAMPLES) instanceof JsonArray raw) {
      for (Object o : raw) {
        if (o instanceof JsonArray pair && pair.size() >= 2 && pair.getValue(0) instanceof Number t
            && pair.getValue(1) instanceof Number mb) {
          samples.add(new double[] {t.doubleValue(), mb.doubleValue()});
        }
      }
    }
    Object reason = gpu.getValue(MetricKeys.GPU_MEMORY_REASON);
    return new Memory(num(gpu, MetricKeys.PEAK_MEMORY_MB), num(gpu, MetricKeys.AVG_MEMORY_MB),
        num(gpu, MetricKeys.VRAM_UTILIZATION_PCT), List.copyOf(samples), reason instanceof String s ? s : null);
  }

  private static Double num(JsonObject o, String key) {
    return o.getValue(key) instanceof Number n ? n.doubleValue() : null;
  }

  private static Map<String, String> load(Object raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw instanceof JsonObject load) {
      for (String key : load.fieldNames()) {
        Object v = load.getValue(key);
        if (v != null) {
          out.put(key, v instanceof JsonObject || v instanceof JsonArray ? String.valueOf(v) : v.toString());
        }
      }
    }
    return Collections.unmodifiableMap(out);
  }

  private static List<String> errors(Object raw) {
    List<String> out = new ArrayList<>();
    if (raw instanceof JsonArray list) {
      for (Object o : list) {
        if (o instanceof JsonObject e && e.getValue("message") instanceof String message) {
          out.add(message);
        } else if (o != null) {
          out.add(o.toString());
        }
      }
    } else if (raw instanceof String s && !s.isBlank()) {
      out.add(s);
    }
    return List.copyOf(out);
  }
}
