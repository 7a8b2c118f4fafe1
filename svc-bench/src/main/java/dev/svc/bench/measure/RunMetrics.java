package dev.svc.bench.measure;

import dev.svc.core.metrics.DistributionSummary;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The aggregate metrics of one benchmark's measured requests (warmup already excluded), exactly as
 * docs/metrics.md, "Per-request metrics" defines them. The window is [first t_send, last t_end] of those requests.
 * A distribution with no values is {@code null}, never a zero that looks real.
 */
public final class RunMetrics {

  /** Milliseconds keep microsecond precision. */
  static final int DECIMALS = 3;

  private RunMetrics() {
  }

  public static JsonObject of(List<RequestRecord> requests, Slo slo) {
    List<RequestRecord> done = requests.stream().filter(RequestRecord::ok).toList();
    long windowStart = requests.stream().mapToLong(RequestRecord::send).min().orElse(0);
    long windowEnd = requests.stream().mapToLong(RequestRecord::end).max().orElse(0);
    double windowS = Math.max(0, windowEnd - windowStart) / 1e9;

    long outputTokens = done.stream().mapToLong(RequestRecord::outputTokens).sum();
    long promptTokens = done.stream().mapToLong(RequestRecord::promptTokens).sum();
    double outputThroughput = perSecond(outputTokens, windowS);

    JsonObject out = new JsonObject()
        .put(MetricKeys.AVG_TPS, round(outputThroughput))
        .put(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, round(outputThroughput))
        .put(MetricKeys.REQUEST_THROUGHPUT, round(perSecond(done.size(), windowS)))
        .put(MetricKeys.TOTAL_TOKEN_THROUGHPUT, round(perSecond(outputTokens + promptTokens, windowS)))
        .put(MetricKeys.TTFT_MS, summary(done, RequestRecord::ttftMs))
        .put(MetricKeys.TPOT_MS, summary(done, RequestRecord::tpotMs))
        .put(MetricKeys.E2E_MS, summary(done, RequestRecord::e2eMs))
        .put(MetricKeys.ICG_MS, summary(done.stream().flatMapToDouble(r -> Arrays.stream(r.gapsMs())).toArray()))
        .put(MetricKeys.ICG_MAX_MS, summary(done, r -> Arrays.stream(r.gapsMs()).max().orElse(Double.NaN)))
        .put(MetricKeys.NTPOT_MS, summary(done, RequestRecord::ntpotMs))
        .put(MetricKeys.DECODE_RATE_TPS, summary(done, r -> 1000.0 / r.tpotMs()))
        .put(MetricKeys.CONNECT_MS, summary(requests, RequestRecord::connectMs))
        .put(MetricKeys.TPOT_EXCLUDED, done.stream().filter(r -> r.outputTokens() < 2).count())
        .put(MetricKeys.TOTAL_ITERATIONS, requests.size())
        .put(MetricKeys.TOTAL_TOKENS_GENERATED, outputTokens)
        .put(MetricKeys.TOTAL_PROMPT_TOKENS, promptTokens)
        .put(MetricKeys.TOKEN_COUNT_SOURCE, tokenSource(done))
        .put(MetricKeys.ERROR_COUNT, requests.size() - done.size())
        .put(MetricKeys.ERROR_RATE, requests.isEmpty() ? 0.0 : round((requests.size() - done.size()) / (double) requests.size()))
        .put(MetricKeys.WINDOW_S, round(windowS));

    List<RequestRecord> timed = done.stream().filter(r -> r.server() != null).toList();
    if (!timed.isEmpty()) {
      // the engine's own account, beside the client's: prompt time, time per decode step, and tokens/s while generating
      out.put(MetricKeys.SERVER_TIMINGS, new JsonObject()
          .put("prompt_ms", summary(timed, r -> r.server().promptMs()))
          .put("predicted_per_token_ms", summary(timed, r -> r.server().perTokenMs()))
          .put(MetricKeys.DECODE_RATE_TPS, summary(timed, r -> r.server().decodeTokensPerSecond()))
          .put("requests", timed.size()));
    }
    List<RequestRecord> scheduled = requests.stream().filter(RequestRecord::scheduled).toList();
    if (!scheduled.isEmpty()) {
      out.put(MetricKeys.QUEUEING_DELAY_MS, summary(scheduled, RequestRecord::queueingDelayMs));
      out.put(MetricKeys.LATENCY_FROM_SCHEDULE_MS, summary(done.stream().filter(RequestRecord::scheduled).toList(),
          RequestRecord::fromScheduleMs));
      out.put(MetricKeys.ACHIEVED_RATE, round(achievedRate(scheduled)));
    }
    if (!slo.isEmpty()) {
      long good = requests.stream().filter(slo::met).count();
      out.put(MetricKeys.SLO, slo.toJson())
          .put(MetricKeys.GOODPUT, round(perSecond(good, windowS)))
          .put(MetricKeys.SLO_ATTAINMENT, requests.isEmpty() ? 0.0 : round(good / (double) requests.size()));
    }
    return out;
  }

  /** Requests sent per second over the span of their send times. */
  static double achievedRate(List<RequestRecord> requests) {
    if (requests.size() < 2) {
      return 0;
    }
    long first = requests.stream().mapToLong(RequestRecord::send).min().orElseThrow();
    long last = requests.stream().mapToLong(RequestRecord::send).max().orElseThrow();
    return last == first ? 0 : (requests.size() - 1) / ((last - first) / 1e9);
  }

  /** "usage" or "chunks" when every request agrees; "mixed" otherwise, so the two are never mixed silently. */
  static String tokenSource(List<RequestRecord> requests) {
    boolean usage = requests.stream().anyMatch(r -> r.tokenSource() == RequestRecord.TokenSource.USAGE);
    boolean chunks = requests.stream().anyMatch(r -> r.tokenSource() == RequestRecord.TokenSource.CHUNKS);
    if (usage && chunks) {
      return "mixed";
    }
    return chunks ? MetricKeys.TOKEN_COUNT_CHUNKS : MetricKeys.TOKEN_COUNT_USAGE;
  }

  private static JsonObject summary(List<RequestRecord> requests, ToDoubleFunction<RequestRecord> metric) {
    return summary(requests.stream().mapToDouble(metric).toArray());
  }

  private static JsonObject summary(double[] values) {
    double[] defined = Arrays.stream(values).filter(v -> !Double.isNaN(v) && !Double.isInfinite(v)).toArray();
    return defined.length == 0 ? null : DistributionSummary.of(defined).toJson(DECIMALS);
  }

  private static double perSecond(double count, double windowS) {
    return windowS > 0 ? count / windowS : 0;
  }

  private static double round(double value) {
    double scale = Math.pow(10, DECIMALS);
    return Math.round(value * scale) / scale;
  }
}
