package dev.svc.perf.bench;

import dev.svc.core.metrics.DistributionSummary;
import java.util.Arrays;
import java.util.Locale;

/** Values of one measured quantity (latencies in ms), kept in full for exact percentiles; one thread at a time. */
public final class Samples {

  private double[] values = new double[1024];
  private int count;

  public void add(double value) {
    if (count == values.length) {
      values = Arrays.copyOf(values, values.length * 2);
    }
    values[count++] = value;
  }

  public void addAll(Samples other) {
    for (int i = 0; i < other.count; i++) {
      add(other.values[i]);
    }
  }

  public int count() {
    return count;
  }

  /** Mean, percentiles (linear between closest ranks), min and max; null when there are none. */
  public DistributionSummary summary() {
    return count == 0 ? null : DistributionSummary.of(Arrays.copyOf(values, count));
  }

  /** "p50 1.23  p99 4.56  max 7.89 ms", or "none" without values. */
  public String describeMs() {
    DistributionSummary s = summary();
    return s == null ? "none" : String.format(Locale.ROOT, "p50 %.2f  p99 %.2f  max %.2f ms", s.p50(), s.p99(), s.max());
  }
}
