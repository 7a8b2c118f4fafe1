package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** The "Load sweep" table of a benchmark on /results/:id: one row per step, in the order run, and the sweep's note. */
final class SweepTable {

  /** A column after the step's number and load: the metric, its statistic ("" for a plain value), a heading. */
  private record Column(String key, String statistic, String label, Function<LoadSweep.Step, Object> read) {
  }

  private static final List<Column> COLUMNS = List.of(
      new Column(MetricKeys.ACHIEVED_RATE, "", "Achieved rate", LoadSweep.Step::achievedRate),
      new Column(MetricKeys.REQUEST_THROUGHPUT, "", "Request throughput", LoadSweep.Step::requestThroughput),
      new Column(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, "", "Output token throughput",
          LoadSweep.Step::outputTokenThroughput),
      distribution(MetricKeys.TTFT_MS, MetricKeys.P50),
      distribution(MetricKeys.TTFT_MS, MetricKeys.P99),
      distribution(MetricKeys.TPOT_MS, MetricKeys.P50),
      distribution(MetricKeys.E2E_MS, MetricKeys.P50),
      new Column(MetricKeys.TOTAL_ITERATIONS, "", "Requests", LoadSweep.Step::requests),
      new Column(MetricKeys.ERROR_COUNT, "", "Errors", LoadSweep.Step::errors));

  private SweepTable() {
  }

  private static Column distribution(String metric, String statistic) {
    return new Column(metric, statistic, ResultCharts.shortName(metric) + " " + statistic,
        step -> step.statistic(metric, statistic));
  }

  /**
   * {columns: [{key, statistic, label, unit}], steps: [{number, load, values, valid, invalid, reason}],
   * invalid: the invalid steps, headline: the second step's load (the maximum throughput, whose
   * metrics the benchmark's other tables hold) or null, note}; null without a sweep. Adds what it
   * shows to the formulas' keys.
   */
  static Map<String, Object> of(LoadSweep sweep, Set<String> shownMetrics, Set<String> shownStats) {
    if (sweep == null) {
      return null;
    }
    List<Map<String, Object>> columns = new ArrayList<>();
    for (Column c : COLUMNS) {
      Map<String, Object> column = new LinkedHashMap<>();
      column.put("key", c.key());
      column.put("statistic", c.statistic());
      column.put("label", c.label());
      column.put("unit", MetricDefinitions.unit(c.key()));
      columns.add(column);
    }
    List<Map<String, Object>> steps = new ArrayList<>();
    for (LoadSweep.Step step : sweep.steps()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("number", step.number());
      row.put("load", step.load());
      row.put("values", COLUMNS.stream().map(c -> DisplayNumbers.format(c.read().apply(step))).toList());
      row.put("valid", step.valid() == null ? "—" : step.valid() ? "yes" : "no");
      row.put("invalid", step.invalid());
      row.put("reason", step.invalidReason() == null ? "no reason recorded" : step.invalidReason());
      steps.add(row);
    }
    if (!steps.isEmpty()) {
      COLUMNS.forEach(c -> shownMetrics.add(c.key()));
      COLUMNS.stream().map(Column::statistic).filter(s -> !s.isEmpty()).forEach(shownStats::add);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("columns", columns);
    out.put("steps", steps);
    out.put("invalid", steps.stream().filter(s -> (Boolean) s.get("invalid")).toList());
    out.put("headline", sweep.steps().size() > 1 ? sweep.steps().get(1).load() : null);
    out.put("note", sweep.note());
    return out;
  }
}
