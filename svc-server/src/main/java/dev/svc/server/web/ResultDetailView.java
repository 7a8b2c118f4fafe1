package dev.svc.server.web;

import dev.svc.server.store.StoredAgent;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The template model of /results/:id: metadata, what was measured, system info, per-benchmark metrics and sweeps, charts, formulas. */
final class ResultDetailView {

  private static final Map<String, String> SYSTEM_LABELS = Map.ofEntries(
      Map.entry("gpu.model", "GPU"), Map.entry("gpu.vram_gb", "VRAM (GB)"), Map.entry("gpu.count", "GPU count"),
      Map.entry("gpu.compute_capability", "Compute capability"), Map.entry("cpu.model", "CPU"),
      Map.entry("cpu.cores", "CPU cores"), Map.entry("cpu.threads", "CPU threads"), Map.entry("ram_gb", "RAM (GB)"),
      Map.entry("cuda_version", "CUDA"), Map.entry("driver_version", "Driver"), Map.entry("os", "OS"),
      Map.entry("environment_type", "Environment"), Map.entry("fingerprint", "Fingerprint"));

  private ResultDetailView() {
  }

  /**
   * @param agent the agent row that ran it (deleted ones included), or null when unknown
   */
  static Map<String, Object> model(ResultDocument doc, StoredAgent agent) {
    Map<String, Object> model = new LinkedHashMap<>();
    model.put("result", summary(doc));
    model.put("meta", meta(doc, agent));
    model.put("provenance", ResultProvenance.pairs(doc));
    model.put("system", system(doc.data().getValue(MetricKeys.SYSTEM_INFO)));
    Set<String> shownMetrics = new LinkedHashSet<>();
    Set<String> shownStats = new LinkedHashSet<>();
    List<Map<String, Object>> benchmarks = new ArrayList<>();
    for (BenchmarkMetrics b : doc.benchmarks()) {
      benchmarks.add(benchmark(b, shownMetrics, shownStats));
    }
    model.put("benchmarks", benchmarks);
    JsonObject charts = ResultCharts.detail(doc.benchmarks());
    model.put("charts", ResultCharts.present(charts));
    model.put("chart_data", ScriptJson.encode(charts));
    model.put("formulas", FormulaList.of(shownMetrics, shownStats,
        doc.benchmarks().stream().anyMatch(b -> !b.confidence().isEmpty())));
    return model;
  }

  /** The fields the page header and the list share: ids, names, badges. */
  static Map<String, Object> summary(ResultDocument doc) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", doc.id());
    r.put("model", doc.model());
    r.put("engine", doc.engine());
    r.put("suite", doc.suite());
    r.put("timestamp", doc.timestamp());
    r.put("passed", doc.passed());
    r.put("simulated", doc.simulated());
    r.put("invalid", doc.invalid());
    r.put("readable", doc.readable());
    return r;
  }

  private static List<Map<String, Object>> meta(ResultDocument doc, StoredAgent agent) {
    List<Map<String, Object>> out = new ArrayList<>();
    pair(out, "Model", doc.model(), null);
    pair(out, "Engine", doc.engine(), null);
    pair(out, "Suite", doc.suite(), null);
    pair(out, "Time", doc.timestamp(), null);
    pair(out, "Outcome", outcome(doc), null);
    if (doc.invalid()) {
      String reason = doc.text("invalid_reason") != null ? doc.text("invalid_reason") : doc.text("reason");
      pair(out, "Valid", reason == null ? "no" : "no: " + reason, null);
    }
    Object seconds = doc.data().getValue(MetricKeys.TOTAL_TIME_SECONDS);
    pair(out, "Total time (s)", seconds instanceof Number ? DisplayNumbers.format(seconds) : null, null);
    if (doc.agentId() != null) {
      boolean live = agent != null && agent.deletedAt() == null;
      String name = agent == null ? doc.agentId() : (agent.name() == null ? doc.agentId() : agent.name()) + (live ? "" : " (deleted)");
      pair(out, "Agent", name, live ? "/agents/" + doc.agentId() : null);
    }
    if (doc.testId() != null) {
      pair(out, "Quick test", doc.testId(), "/quicktest/" + doc.testId());
    }
    pair(out, "Source file", doc.sourcePath(), null);
    pair(out, "Indexed", doc.indexedAt(), null);
    return out;
  }

  private static String outcome(ResultDocument doc) {
    Object total = doc.data().getValue(MetricKeys.TOTAL_BENCHMARKS);
    Object passedCount = doc.data().getValue(MetricKeys.PASSED_COUNT);
    String text = doc.passed() ? "passed" : "failed";
    if (total instanceof Number t && passedCount instanceof Number p) {
      text += " (" + p + " of " + t + " benchmarks passed)";
    }
    return text;
  }

  /** Label/value pairs of {@code system_info}: known keys by name, others by their dotted key. */
  static List<Map<String, Object>> system(Object raw) {
    List<Map<String, Object>> out = new ArrayList<>();
    if (raw instanceof JsonObject info) {
      flattenSystem(out, "", info, 0);
    }
    return out;
  }

  private static void flattenSystem(List<Map<String, Object>> out, String prefix, JsonObject node, int depth) {
    for (String key : node.fieldNames()) {
      Object v = node.getValue(key);
      String path = prefix + key;
      if (v instanceof JsonObject nested) {
        if (depth < 2) {
          flattenSystem(out, path + ".", nested, depth + 1);
        }
      } else if (v instanceof JsonArray list) {
        String joiner = key.equals(MetricKeys.COMPUTE_CAPABILITY) ? "." : ", ";
        String text = String.join(joiner, list.stream().map(String::valueOf).toList());
        pair(out, SYSTEM_LABELS.getOrDefault(path, path), text, null);
      } else if (v != null) {
        pair(out, SYSTEM_LABELS.getOrDefault(path, path), DisplayNumbers.format(v), null);
      }
    }
  }

  private static Map<String, Object> benchmark(BenchmarkMetrics b, Set<String> shownMetrics, Set<String> shownStats) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", b.name());
    out.put("run_number", b.runNumber());
    out.put("status", b.passed() == null ? "" : b.passed() ? "passed" : "failed");
    List<Map<String, Object>> load = new ArrayList<>();
    b.load().forEach((k, v) -> pair(load, k, v, null));
    out.put("load", load);
    out.put("errors", b.errors());
    out.put("invalid_reason", b.invalidReason());
    out.put("repeats", b.repeats());

    List<Map<String, Object>> scalars = new ArrayList<>();
    b.scalars().forEach((key, value) -> {
      scalars.add(metricRow(key, withInterval(b, key, value)));
      shownMetrics.add(key);
    });
    out.put("scalars", scalars);

    List<String> stats = statisticColumns(b.distributions().values());
    List<Map<String, Object>> rows = new ArrayList<>();
    b.distributions().forEach((key, summary) -> {
      Map<String, Object> row = metricRow(key, null);
      row.put("values", stats.stream().map(s -> withInterval(b, key + "." + s, summary.get(s))).toList());
      rows.add(row);
      shownMetrics.add(key);
    });
    shownStats.addAll(stats);
    out.put("stats", stats);
    out.put("distributions", rows);
    out.put("memory", memory(b, shownMetrics));
    out.put("sweep", SweepTable.of(b.sweep(), shownMetrics, shownStats));
    return out;
  }

  /**
   * A figure as the page shows it: a repeated benchmark's mean followed by "± h", the half-width of
   * its 95 % interval, where it has one.
   */
  static String withInterval(BenchmarkMetrics b, String figure, Object value) {
    return DisplayNumbers.withInterval(value, b.interval(figure));
  }

  private static Map<String, Object> memory(BenchmarkMetrics b, Set<String> shownMetrics) {
    BenchmarkMetrics.Memory m = b.memory();
    if (m == null) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    String gpu = MetricKeys.GPU_MEMORY + ".";
    rows.add(metricRow(MetricKeys.PEAK_MEMORY_MB, withInterval(b, gpu + MetricKeys.PEAK_MEMORY_MB, m.peakMb())));
    rows.add(metricRow(MetricKeys.AVG_MEMORY_MB, withInterval(b, gpu + MetricKeys.AVG_MEMORY_MB, m.avgMb())));
    rows.add(metricRow(MetricKeys.VRAM_UTILIZATION_PCT,
        withInterval(b, gpu + MetricKeys.VRAM_UTILIZATION_PCT, m.utilizationPct())));
    shownMetrics.addAll(List.of(MetricKeys.PEAK_MEMORY_MB, MetricKeys.AVG_MEMORY_MB, MetricKeys.VRAM_UTILIZATION_PCT));
    out.put("rows", rows);
    out.put("samples", m.samples().size());
    out.put("reason", m.reason());
    return out;
  }

  private static Map<String, Object> metricRow(String key, String value) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("key", key);
    row.put("label", MetricDefinitions.label(key));
    row.put("unit", MetricDefinitions.unit(key));
    row.put("value", value);
    return row;
  }

  /** The statistic columns of a benchmark's distribution table: mean, the percentiles, min, max, std, as present. */
  static List<String> statisticColumns(Collection<Map<String, Double>> summaries) {
    Set<String> present = new LinkedHashSet<>();
    summaries.forEach(s -> present.addAll(s.keySet()));
    List<String> out = new ArrayList<>();
    if (present.contains(MetricKeys.MEAN)) {
      out.add(MetricKeys.MEAN);
    }
    present.stream().filter(s -> MetricDefinitions.percentileRank(s) >= 0)
        .sorted(Comparator.comparingInt(MetricDefinitions::percentileRank)).forEach(out::add);
    for (String s : List.of(MetricKeys.MIN, MetricKeys.MAX, MetricKeys.STD)) {
      if (present.contains(s)) {
        out.add(s);
      }
    }
    return out;
  }

  private static void pair(List<Map<String, Object>> out, String label, String value, String href) {
    if (value == null || value.isBlank()) {
      return;
    }
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("label", label);
    p.put("value", value);
    p.put("href", href);
    out.add(p);
  }
}
