package dev.svc.bench.load;

import java.util.SplittableRandom;

/**
 * The intended send times of an open-loop load, in nanoseconds from the start of the run:
 * evenly spaced for {@code rate:R}; for {@code poisson:R}, exponential inter-arrival times drawn
 * from a seeded generator and scaled so that their mean is exactly 1/R. The pattern of arrivals
 * is random, but the offered rate is the one asked for: without the scaling, a 20 s run of
 * 1,000 Poisson arrivals offers a rate that is itself random (±3 %), and the load generator could
 * not be held to the rate.
 */
public final class ArrivalSchedule {

  private final long[] due;
  private int next;

  /** The first {@code count} send times of {@code model}, seeded. */
  public ArrivalSchedule(LoadModel model, long seed, int count) {
    if (!model.openLoop()) {
      throw new IllegalArgumentException("Load model " + model + " is not open-loop");
    }
    if (count < 1) {
      throw new IllegalArgumentException("A schedule needs at least one request");
    }
    double meanGapNanos = 1e9 / model.rate();
    double[] gaps = new double[count - 1];
    double sum = 0;
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < gaps.length; i++) {
      gaps[i] = model.mode() == LoadModel.Mode.POISSON ? -Math.log(1.0 - random.nextDouble()) : 1.0;
      sum += gaps[i];
    }
    double scale = gaps.length == 0 ? 0 : meanGapNanos * gaps.length / sum;
    due = new long[count];
    double at = 0;
    for (int i = 1; i < count; i++) {
      at += gaps[i - 1] * scale;
      due[i] = Math.round(at);
    }
  }

  public int size() {
    return due.length;
  }

  /** The next intended send time; the first request is due at 0. */
  public long next() {
    if (next == due.length) {
      throw new IllegalStateException("The schedule holds " + due.length + " requests");
    }
    return due[next++];
  }

  public boolean hasNext() {
    return next < due.length;
  }
}
