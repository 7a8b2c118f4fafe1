package dev.svc.core.metrics;

import io.vertx.core.json.JsonObject;
import java.util.Arrays;

/**
 * The aggregate of one per-request metric (docs/metrics.md, "Per-request metrics"): mean, percentiles by linear
 * interpolation between closest ranks, min, max and the population standard deviation.
 */
public record DistributionSummary(double mean, double p50, double p90, double p95, double p99, double min,
    double max, double std) {

  /** Summarises the values; at least one is required (with none, the runner records null and the reason). */
  public static DistributionSummary of(double[] values) {
    if (values == null || values.length == 0) {
      throw new IllegalArgumentException("A distribution needs at least one value");
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    double sum = 0;
    for (double v : sorted) {
      sum += v;
    }
    double mean = sum / sorted.length;
    double squares = 0;
    for (double v : sorted) {
      squares += (v - mean) * (v - mean);
    }
    // the mean of sorted doubles can round a hair outside [min, max] when all values are equal
    mean = Math.min(sorted[sorted.length - 1], Math.max(sorted[0], mean));
    return new DistributionSummary(mean, percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 95),
        percentile(sorted, 99), sorted[0], sorted[sorted.length - 1], Math.sqrt(squares / sorted.length));
  }

  /** The p-th percentile (0..100) of sorted values, interpolating linearly between closest ranks. */
  static double percentile(double[] sorted, double p) {
    double rank = p / 100.0 * (sorted.length - 1);
    int low = (int) Math.floor(rank);
    int high = (int) Math.ceil(rank);
    return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
  }

  /** The summary under {@link MetricKeys#STATISTICS}, rounded to {@code decimals} (rounding keeps the order). */
  public JsonObject toJson(int decimals) {
    return new JsonObject()
        .put(MetricKeys.MEAN, round(mean, decimals))
        .put(MetricKeys.P50, round(p50, decimals))
        .put(MetricKeys.P90, round(p90, decimals))
        .put(MetricKeys.P95, round(p95, decimals))
        .put(MetricKeys.P99, round(p99, decimals))
        .put(MetricKeys.MIN, round(min, decimals))
        .put(MetricKeys.MAX, round(max, decimals))
        .put(MetricKeys.STD, round(std, decimals));
  }

  /** {@code value} rounded half up to {@code decimals} decimal places. */
  public static double round(double value, int decimals) {
    double scale = Math.pow(10, decimals);
    return Math.round(value * scale) / scale;
  }
}
