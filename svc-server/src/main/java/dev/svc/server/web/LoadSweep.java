package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The steps of a benchmark run under the {@code sweep} load (docs/metrics.md, "Load models"), read
 * tolerantly from its {@code sweep} list: one step per object, in the order run, with
 * {@code sweep_note} when no open-loop step ran. Missing or odd values are null, never zeros.
 *
 * @param steps the steps in the order run (entries that are not objects are skipped)
 * @param note why the sweep ran no open-loop steps, null when absent
 */
record LoadSweep(List<Step> steps, String note) {

  /**
   * One step of a sweep.
   *
   * @param number its place in the list, from 1 (the order run)
   * @param load its load model's wire name ({@code sequential}, {@code concurrency:16}, {@code poisson:3.2})
   * @param achievedRate requests sent / span of their send times; open-loop steps only, else null
   * @param distributions metric key → statistic → value, e.g. ttft_ms → p50 → 40.1
   * @param valid the step's {@code valid}, null when absent
   * @param invalidReason why it is not valid, null when absent
   */
  record Step(int number, String load, Double achievedRate, Double requestThroughput, Double outputTokenThroughput,
      Map<String, Map<String, Double>> distributions, Number requests, Number errors, Boolean valid,
      String invalidReason) {

    /** A statistic of one of the step's distributions, or null. */
    Double statistic(String metric, String statistic) {
      Map<String, Double> d = distributions.get(metric);
      return d == null ? null : d.get(statistic);
    }

    boolean invalid() {
      return Boolean.FALSE.equals(valid);
    }
  }

  /** The sweep of a benchmark's metrics, or null when they hold neither {@code sweep} nor {@code sweep_note}. */
  static LoadSweep of(JsonObject metrics) {
    Object raw = metrics.getValue(MetricKeys.SWEEP);
    Object note = metrics.getValue(MetricKeys.SWEEP_NOTE);
    if (!(raw instanceof JsonArray) && !(note instanceof String)) {
      return null;
    }
    List<Step> steps = new ArrayList<>();
    if (raw instanceof JsonArray list) {
      for (int i = 0; i < list.size(); i++) {
        if (list.getValue(i) instanceof JsonObject step) {
          steps.add(step(i + 1, step));
        }
      }
    }
    return new LoadSweep(List.copyOf(steps), note instanceof String s && !s.isBlank() ? s : null);
  }

  private static Step step(int number, JsonObject step) {
    Map<String, Map<String, Double>> distributions = new LinkedHashMap<>();
    for (String key : step.fieldNames()) {
      if (step.getValue(key) instanceof JsonObject nested && BenchmarkMetrics.isDistribution(nested)) {
        distributions.put(key, BenchmarkMetrics.distribution(nested));
      }
    }
    Object load = step.getValue(MetricKeys.LOAD);
    Object valid = step.getValue(MetricKeys.VALID);
    Object reason = step.getValue(MetricKeys.INVALID_REASON);
    return new Step(number, load instanceof String s && !s.isBlank() ? s : "step " + number,
        number(step, MetricKeys.ACHIEVED_RATE), number(step, MetricKeys.REQUEST_THROUGHPUT),
        number(step, MetricKeys.OUTPUT_TOKEN_THROUGHPUT), Collections.unmodifiableMap(distributions),
        step.getValue(MetricKeys.TOTAL_ITERATIONS) instanceof Number n ? n : null,
        step.getValue(MetricKeys.ERROR_COUNT) instanceof Number n ? n : null,
        valid instanceof Boolean b ? b : null, reason instanceof String s && !s.isBlank() ? s : null);
  }

  private static Double number(JsonObject o, String key) {
    return o.getValue(key) instanceof Number n ? n.doubleValue() : null;
  }
}
