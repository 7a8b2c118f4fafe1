package dev.svc.bench.run;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadProgress;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.bench.measure.RunMetrics;
import dev.svc.bench.measure.Slo;
import dev.svc.bench.suite.BenchmarkSettings;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * The sweep load (docs/metrics.md, "Load models"): a sequential baseline (rate r_seq = completed requests /
 * window), then the maximum throughput in closed loop (r_max, with the benchmark's
 * {@code concurrency:N}, or {@value #DEFAULT_CONCURRENCY} workers), then Poisson arrivals at rates
 * 20, 40, 60 and 80 % of the way from r_seq to r_max. Every step sends the benchmark's iterations,
 * each step prompts of its own (an engine would answer repeats from its prompt cache), with the
 * same seed; the warmup requests go once, before the first step. An engine
 * whose r_max is not above r_seq gets no open-loop steps, and the result says why.
 */
final class Sweep {

  /** Workers of the max-throughput step when the benchmark names no concurrency above 1. */
  static final int DEFAULT_CONCURRENCY = 16;
  private static final double[] FRACTIONS = {0.2, 0.4, 0.6, 0.8};
  /** The most steps a sweep runs: the baseline, the maximum and one per fraction. */
  static final int MAX_STEPS = 2 + FRACTIONS.length;

  private final LoadRunner runner;
  private final LoadProgress progress;
  private final Slo slo;
  private final long seed;

  Sweep(LoadRunner runner, LoadProgress progress, Slo slo, long seed) {
    this.runner = runner;
    this.progress = progress;
    this.slo = slo;
    this.seed = seed;
  }

  /**
   * One step: its load, its measured requests, their metrics, why its client fell behind its schedule
   * and why its client saturated its CPU (each null when it did not).
   */
  record Step(LoadModel load, List<RequestRecord> records, JsonObject metrics, String lagReason, String cpuReason) {

    String invalidReason() {
      return BenchmarkExecutor.joined(lagReason, cpuReason);
    }

    JsonObject toJson() {
      JsonObject out = new JsonObject();
      for (String key : MetricKeys.SWEEP_STEP) {
        out.put(key, metrics.getValue(key));
      }
      if (load.openLoop()) {
        MetricKeys.SWEEP_OPEN_LOOP_STEP.forEach(key -> out.put(key, metrics.getValue(key)));
      }
      out.put(MetricKeys.CLIENT_CPU, metrics.getValue(MetricKeys.CLIENT_CPU));
      String invalidReason = invalidReason();
      out.put(MetricKeys.LOAD, load.wireName()).put(MetricKeys.VALID, invalidReason == null);
      return invalidReason == null ? out : out.put(MetricKeys.INVALID_REASON, invalidReason);
    }
  }

  Future<Measurement> run(BenchmarkSettings settings, IntFunction<RequestSpec> requests) {
    LoadModel max = LoadModel.concurrency(maxConcurrency(settings.load()));
    List<Step> steps = new ArrayList<>();
    int planned = MAX_STEPS;
    return step(steps, planned, LoadModel.SEQUENTIAL, settings, settings.warmupRequests(), requests)
        .compose(v -> step(steps, planned, max, settings, 0, requests))
        .compose(v -> {
          List<Double> rates = rates(throughput(steps.get(0)), throughput(steps.get(1)));
          Future<Void> chain = Future.succeededFuture();
          for (double rate : rates) {
            chain = chain.compose(w -> step(steps, 2 + rates.size(), LoadModel.poisson(rate), settings, 0, requests));
          }
          return chain.map(w -> measurement(steps, rates.isEmpty() ? note(steps.get(0), steps.get(1)) : null));
        });
  }

  static int maxConcurrency(LoadModel sweep) {
    return sweep.concurrency() > 1 ? sweep.concurrency() : DEFAULT_CONCURRENCY;
  }

  /**
   * The open-loop rates: evenly spaced from {@code sequential} to {@code max}, to three significant
   * figures, each strictly between the two; none when {@code max} is not above {@code sequential}.
   */
  static List<Double> rates(double sequential, double max) {
    List<Double> out = new ArrayList<>();
    for (double fraction : FRACTIONS) {
      double rate = BigDecimal.valueOf(sequential + fraction * (max - sequential)).round(new MathContext(3)).doubleValue();
      if (rate > sequential && rate < max && (out.isEmpty() || rate > out.get(out.size() - 1))) {
        out.add(rate);
      }
    }
    return out;
  }

  private Future<Void> step(List<Step> steps, int planned, LoadModel load, BenchmarkSettings settings, int warmup,
      IntFunction<RequestSpec> requests) {
    progress.stage("step " + (steps.size() + 1) + "/" + planned + " " + load.wireName());
    int first = steps.size() * settings.iterations(); // step k sends requests k*iterations.. of the benchmark
    return runner.run(load, settings.iterations(), warmup, seed, i -> requests.apply(i < 0 ? i : first + i)).map(run -> {
      JsonObject metrics = RunMetrics.of(run.measured(), slo).put(MetricKeys.CLIENT_CPU, run.clientCpu().toJson());
      steps.add(new Step(load, run.measured(), metrics, BenchmarkExecutor.invalidReason(load, metrics),
          run.clientCpu().saturationReason()));
      return null;
    });
  }

  /** The max-throughput step's metrics with the steps beside them; every step's requests, in step order. */
  private static Measurement measurement(List<Step> steps, String note) {
    JsonArray json = new JsonArray();
    List<RequestRecord> records = new ArrayList<>();
    List<String> invalid = new ArrayList<>();
    List<String> saturated = new ArrayList<>();
    for (Step step : steps) {
      json.add(step.toJson());
      records.addAll(step.records());
      if (step.lagReason() != null) {
        invalid.add(String.format(Locale.ROOT, "%s (%.1f ms)", step.load().wireName(),
            step.metrics().getJsonObject(MetricKeys.QUEUEING_DELAY_MS).getDouble(MetricKeys.P99)));
      }
      if (step.cpuReason() != null) {
        saturated.add("in step " + step.load().wireName() + ", " + step.cpuReason());
      }
    }
    JsonObject metrics = steps.get(1).metrics().copy().put(MetricKeys.SWEEP, json);
    if (note != null) {
      metrics.put(MetricKeys.SWEEP_NOTE, note);
    }
    String lag = invalid.isEmpty() ? null : String.format(Locale.ROOT, "the client, not the engine, was the"
        + " bottleneck: schedule lag p99 above %.0f ms in %s", BenchmarkExecutor.LAG_LIMIT_MS, String.join(", ", invalid));
    return new Measurement(metrics, records, BenchmarkExecutor.joined(lag, BenchmarkExecutor.joined(
        saturated.toArray(String[]::new))));
  }

  private static String note(Step sequential, Step max) {
    return String.format(Locale.ROOT, "no open-loop steps: the maximum throughput (%s requests/s at %s) is not"
            + " above the sequential rate (%s requests/s) by enough to place a rate between them; the engine does"
            + " not serve requests in parallel", throughput(max), max.load().wireName(), throughput(sequential));
  }

  private static double throughput(Step step) {
    return step.metrics().getDouble(MetricKeys.REQUEST_THROUGHPUT);
  }
}
