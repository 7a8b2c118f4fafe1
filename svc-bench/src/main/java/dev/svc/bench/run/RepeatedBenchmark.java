package dev.svc.bench.run;

import dev.svc.bench.measure.RequestRecord;
import dev.svc.core.metrics.Confidence;
import dev.svc.core.metrics.DistributionSummary;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The runs of a benchmark run several times, as one entry of metrics.json (docs/metrics.md,
 * "Repeats and confidence intervals"): each figure is the mean of its runs' values, with the 95 %
 * Student-t interval of that mean under {@code confidence}; counts (requests, tokens, errors, the
 * measured window) are summed; every run's own entry is kept under {@code repeat_runs}. The
 * benchmark passed when every run did and is valid when every run was, the reasons named by run.
 */
public final class RepeatedBenchmark {

  /** Figures that count something over a run: over several runs, their sum. */
  static final Set<String> SUMMED = Set.of(MetricKeys.TOTAL_ITERATIONS, MetricKeys.TOTAL_TOKENS_GENERATED,
      MetricKeys.TOTAL_PROMPT_TOKENS, MetricKeys.ERROR_COUNT, MetricKeys.TPOT_EXCLUDED, MetricKeys.CACHED_PROMPT_TOKENS,
      MetricKeys.WINDOW_S, MetricKeys.SERVER_TIMINGS + ".requests");

  private static final int DECIMALS = 3;

  private RepeatedBenchmark() {
  }

  /** One entry for {@code runs} (in the order run); a single run is returned as it is. */
  public static BenchmarkOutcome combine(List<BenchmarkOutcome> runs) {
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("A benchmark ran at least once");
    }
    if (runs.size() == 1) {
      return runs.get(0);
    }
    List<JsonObject> entries = runs.stream().map(BenchmarkOutcome::result).toList();
    JsonObject figures = new JsonObject();
    JsonObject metrics = merge("", entries.stream()
        .map(e -> e.getJsonObject(MetricKeys.METRICS, new JsonObject())).toList(), figures);
    Set<Object> errors = new LinkedHashSet<>();
    List<String> reasons = new ArrayList<>();
    List<RequestRecord> records = new ArrayList<>();
    JsonArray perRun = new JsonArray();
    for (BenchmarkOutcome run : runs) {
      JsonObject entry = run.result();
      entry.getJsonArray(MetricKeys.ERRORS, new JsonArray()).forEach(errors::add);
      if (!run.valid()) {
        reasons.add("run " + entry.getValue(MetricKeys.RUN_NUMBER) + ": " + entry.getString(MetricKeys.INVALID_REASON));
      }
      records.addAll(run.records());
      perRun.add(entry);
    }
    boolean passed = runs.stream().allMatch(BenchmarkOutcome::passed);
    boolean valid = reasons.isEmpty();
    JsonObject combined = entries.get(0).copy();
    combined.remove(MetricKeys.RUN_NUMBER);
    combined.remove(MetricKeys.INVALID_REASON);
    combined.put(MetricKeys.PASSED, passed).put(MetricKeys.METRICS, metrics)
        .put(MetricKeys.ERRORS, new JsonArray(new ArrayList<>(errors))).put(MetricKeys.VALID, valid);
    if (!valid) {
      combined.put(MetricKeys.INVALID_REASON, String.join("; ", reasons));
    }
    combined.put(MetricKeys.REPEATS, runs.size())
        .put(MetricKeys.CONFIDENCE, new JsonObject().put(MetricKeys.CONFIDENCE_METHOD, Confidence.METHOD)
            .put(MetricKeys.CONFIDENCE_LEVEL, Confidence.LEVEL).put(MetricKeys.CONFIDENCE_FIGURES, figures))
        .put(MetricKeys.REPEAT_RUNS, perRun);
    return new BenchmarkOutcome(combined, passed, valid, records);
  }

  /**
   * The runs' {@code metrics} objects as one: numbers become their mean (their interval added to
   * {@code figures} under the dotted path) or, for counts, their sum; nested objects merge the same
   * way; anything else (text, lists such as GPU memory samples) is the first run's, except a token
   * count source the runs disagree on, which is "mixed". The SLO is settings, not a figure.
   */
  private static JsonObject merge(String prefix, List<JsonObject> objects, JsonObject figures) {
    Set<String> keys = new LinkedHashSet<>();
    objects.forEach(o -> keys.addAll(o.fieldNames()));
    JsonObject out = new JsonObject();
    for (String key : keys) {
      String path = prefix + key;
      List<Object> values = objects.stream().map(o -> o.getValue(key)).toList();
      List<Object> present = values.stream().filter(Objects::nonNull).toList();
      if (present.isEmpty()) {
        out.putNull(key);
      } else if (!key.equals(MetricKeys.SLO) && present.stream().allMatch(v -> v instanceof Number)) {
        double[] numbers = present.stream().mapToDouble(v -> ((Number) v).doubleValue()).toArray();
        if (SUMMED.contains(path)) {
          out.put(key, sum(present, numbers));
        } else {
          Confidence confidence = Confidence.of(numbers);
          out.put(key, DistributionSummary.round(confidence.mean(), DECIMALS));
          figures.put(path, confidence.toJson(DECIMALS));
        }
      } else if (!key.equals(MetricKeys.SLO) && present.stream().allMatch(v -> v instanceof JsonObject)) {
        out.put(key, merge(path + ".", present.stream().map(v -> (JsonObject) v).toList(), figures));
      } else if (key.equals(MetricKeys.TOKEN_COUNT_SOURCE) && present.stream().distinct().count() > 1) {
        out.put(key, "mixed");
      } else {
        out.put(key, present.get(0));
      }
    }
    return out;
  }

  private static Number sum(List<Object> values, double[] numbers) {
    boolean whole = values.stream().allMatch(v -> v instanceof Integer || v instanceof Long);
    double total = 0;
    for (double n : numbers) {
      total += n;
    }
    return whole ? (Number) Math.round(total) : (Number) DistributionSummary.round(total, DECIMALS);
  }
}
