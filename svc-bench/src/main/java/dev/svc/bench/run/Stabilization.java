package dev.svc.bench.run;

import java.util.Arrays;

/**
 * The warmup benchmark's stabilisation point: the first iteration from which latency stays at the
 * steady state (the median of the last half of the iterations). A single noisy request must not
 * hide or move the point, so each iteration is judged by the median of itself and its two
 * neighbours, and "at the steady state" means within {@link #TOLERANCE} of it or
 * {@link #FLOOR_MS}, whichever is wider (timer noise on fast engines).
 */
public final class Stabilization {

  public static final double TOLERANCE = 0.10;
  public static final double FLOOR_MS = 2.0;

  private Stabilization() {
  }

  /** The 1-based iteration at which latencies settle; -1 when they do not (or with fewer than 4 values). */
  public static int iteration(double[] latencies) {
    int n = latencies.length;
    if (n < 4) {
      return -1;
    }
    double steady = median(Arrays.copyOfRange(latencies, n / 2, n));
    double band = Math.max(TOLERANCE * steady, FLOOR_MS);
    int settled = n;
    for (int i = n - 1; i >= 0; i--) {
      double local = median(Arrays.copyOfRange(latencies, Math.max(0, i - 1), Math.min(n, i + 2)));
      if (Math.abs(local - steady) > band) {
        break;
      }
      settled = i;
    }
    return settled == n ? -1 : settled + 1;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int m = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
  }
}
