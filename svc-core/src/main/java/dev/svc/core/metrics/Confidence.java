package dev.svc.core.metrics;

import io.vertx.core.json.JsonObject;

/**
 * How sure a figure of a repeated benchmark is: the mean of its value over the repeats, their
 * sample standard deviation, their number, and the 95 % Student-t confidence interval of the mean
 * (docs/metrics.md, "Repeats and confidence intervals"). With one repeat there is no interval.
 *
 * @param low the interval's lower end, null with fewer than 2 values
 * @param high its upper end, null with fewer than 2 values
 */
public record Confidence(double mean, double std, int n, Double low, Double high) {

  /** The confidence level of every interval svc gives. */
  public static final double LEVEL = 0.95;
  /** How the interval is computed, as metrics.json names it. */
  public static final String METHOD = "student_t";

  /** Two-sided 97.5 % quantiles of Student's t for 1 to 30 degrees of freedom. */
  private static final double[] T_975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
      2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
      2.048, 2.045, 2.042};

  /** The mean of {@code values} and its interval; at least one value is required. */
  public static Confidence of(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("A confidence interval needs at least one value");
    }
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    double mean = sum / values.length;
    if (values.length < 2) {
      return new Confidence(mean, 0, 1, null, null);
    }
    double squares = 0;
    for (double v : values) {
      squares += (v - mean) * (v - mean);
    }
    double std = Math.sqrt(squares / (values.length - 1));
    double half = t975(values.length - 1) * std / Math.sqrt(values.length);
    return new Confidence(mean, std, values.length, mean - half, mean + half);
  }

  /**
   * The 97.5 % quantile of Student's t with {@code df} degrees of freedom. A fractional df (Welch's)
   * is rounded down, which widens the interval a little: the conservative side.
   */
  public static double t975(double df) {
    if (!(df >= 1)) {
      throw new IllegalArgumentException("Student's t needs at least 1 degree of freedom, got " + df);
    }
    int whole = (int) Math.floor(df);
    if (whole <= T_975.length) {
      return T_975[whole - 1];
    }
    // beyond 30 the quantile is close to linear in 1/df: 2.042 at 30, 1.960 in the limit
    return 1.960 + (T_975[T_975.length - 1] - 1.960) * T_975.length / whole;
  }

  /** Half the interval's width, null without an interval. */
  public Double halfWidth() {
    return low == null ? null : (high - low) / 2;
  }

  /**
   * Whether the difference between the means of {@code a} and {@code b} is within the noise: Welch's
   * 95 % interval of the difference holds 0. Both need at least 2 values; false otherwise (nothing
   * says it is noise).
   */
  public static boolean withinNoise(Confidence a, Confidence b) {
    if (a == null || b == null || a.n < 2 || b.n < 2) {
      return false;
    }
    double va = a.std * a.std / a.n;
    double vb = b.std * b.std / b.n;
    double se = Math.sqrt(va + vb);
    double difference = Math.abs(a.mean - b.mean);
    if (se == 0) {
      return difference == 0;
    }
    double df = (va + vb) * (va + vb) / (va * va / (a.n - 1) + vb * vb / (b.n - 1));
    return difference <= t975(Math.max(1, df)) * se;
  }

  /** {@code {"mean", "std", "n", "low", "high"}}, rounded to {@code decimals}. */
  public JsonObject toJson(int decimals) {
    return new JsonObject().put(MetricKeys.MEAN, DistributionSummary.round(mean, decimals))
        .put(MetricKeys.STD, DistributionSummary.round(std, decimals)).put(MetricKeys.CI_N, n)
        .put(MetricKeys.CI_LOW, low == null ? null : DistributionSummary.round(low, decimals))
        .put(MetricKeys.CI_HIGH, high == null ? null : DistributionSummary.round(high, decimals));
  }

  /** The figure {@link #toJson} wrote; null when {@code json} is not one (read tolerantly). */
  public static Confidence fromJson(Object json) {
    if (!(json instanceof JsonObject o) || !(o.getValue(MetricKeys.MEAN) instanceof Number mean)
        || !(o.getValue(MetricKeys.CI_N) instanceof Number n) || n.intValue() < 1) {
      return null;
    }
    double std = o.getValue(MetricKeys.STD) instanceof Number s ? s.doubleValue() : 0;
    Double low = o.getValue(MetricKeys.CI_LOW) instanceof Number l ? l.doubleValue() : null;
    Double high = o.getValue(MetricKeys.CI_HIGH) instanceof Number h ? h.doubleValue() : null;
    return low == null || high == null ? new Confidence(mean.doubleValue(), std, n.intValue(), null, null)
        : new Confidence(mean.doubleValue(), std, n.intValue(), low, high);
  }
}
