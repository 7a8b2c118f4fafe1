package dev.svc.bench.load;

import java.util.SplittableRandom;

/**
 * The intended send times of an open-loop load, in nanoseconds from the start of the run:
 * evenly spaced for {@code rate:R}, exponential inter-arrival times with mean 1/R for
 * {@code poisson:R}. Seeded, so a run's schedule can be reproduced exactly.
 */
public final class ArrivalSchedule {

  private final LoadModel model;
  private final SplittableRandom random;
  private final double meanGapNanos;
  private double next;

  public ArrivalSchedule(LoadModel model, long seed) {
    if (!model.openLoop()) {
      throw new IllegalArgumentException("Load model " + model + " is not open-loop");
    }
    this.model = model;
    this.random = new SplittableRandom(seed);
    this.meanGapNanos = 1e9 / model.rate();
  }

  /** The next intended send time; the first request is due at 0. */
  public long next() {
    long due = Math.round(next);
    next += model.mode() == LoadModel.Mode.POISSON ? -Math.log(1.0 - random.nextDouble()) * meanGapNanos : meanGapNanos;
    return due;
  }
}
