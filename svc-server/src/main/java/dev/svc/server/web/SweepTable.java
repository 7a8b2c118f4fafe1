package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The "Load sweep" table of a benchmark on /results/:id: one row per step, in the order run, and the
 * sweep's note; in compact form, one per swept benchmark of each result on /results/compare.
 */
final class SweepTable {

  /** A column after the step's number and load: the metric, its statistic ("" for a plain value), a heading. */
  private record Column(String key, String statistic, String label, Function<LoadSweep.Step, Object> read) {
  }

  private static final Column REQUEST_THROUGHPUT = new Column(MetricKeys.REQUEST_THROUGHPUT, "", "Request throughput",
      LoadSweep.Step::requestThroughput);
  private static final Column OUTPUT_TOKEN_THROUGHPUT = new Column(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, "",
      "Output token throughput", LoadSweep.Step::outputTokenThroughput);
  private static final Column TTFT_P50 = distribution(MetricKeys.TTFT_MS, MetricKeys.P50);

  private static final List<Column> COLUMNS = List.of(
      new Column(MetricKeys.ACHIEVED_RATE, "", "Achieved rate", LoadSweep.Step::achievedRate),
      REQUEST_THROUGHPUT,
      OUTPUT_TOKEN_THROUGHPUT,
      TTFT_P50,
      distribution(MetricKeys.TTFT_MS, MetricKeys.P99),
      distribution(MetricKeys.TPOT_MS, MetricKeys.P50),
      distribution(MetricKeys.E2E_MS, MetricKeys.P50),
      new Column(MetricKeys.TOTAL_ITERATIONS, "", "Requests", LoadSweep.Step::requests),
      new Column(MetricKeys.ERROR_COUNT, "", "Errors", LoadSweep.Step::errors));

  /** The few columns that let several sweeps sit side by side on /results/compare. */
  private static final List<Column> COMPACT_COLUMNS = List.of(REQUEST_THROUGHPUT, OUTPUT_TOKEN_THROUGHPUT, TTFT_P50);

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
    return table(sweep, COLUMNS, shownMetrics, shownStats);
  }

  /** As {@link #of}, with only the request and output token throughput and TTFT p50 of each step. */
  static Map<String, Object> compact(LoadSweep sweep, Set<String> shownMetrics, Set<String> shownStats) {
    return table(sweep, COMPACT_COLUMNS, shownMetrics, shownStats);
  }

  private static Map<String, Object> table(LoadSweep sweep, List<Column> shown, Set<String> shownMetrics,
      Set<String> shownStats) {
    if (sweep == null) {
      return null;
    }
    List<Map<String, Object>> columns = new ArrayList<>();
    for (Column c : shown) {
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
      row.put("values", shown.stream().map(c -> DisplayNumbers.format(c.read().apply(step))).toList());
      row.put("valid", step.valid() == null ? "—" : step.valid() ? "yes" : "no");
      row.put("invalid", step.invalid());
      row.put("reason", step.invalidReason() == null ? "no reason recorded" : step.invalidReason());
      steps.add(row);
    }
    if (!steps.isEmpty()) {
      shown.forEach(c -> shownMetrics.add(c.key()));
      shown.stream().map(Column::statistic).filter(s -> !s.isEmpty()).forEach(shownStats::add);
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
