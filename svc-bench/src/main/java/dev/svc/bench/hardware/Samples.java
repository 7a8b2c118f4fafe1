package dev.svc.bench.hardware;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The samples a tracker's own thread takes while the caller's thread may read how many there are:
 * one lock around them, and the {@link MemoryTracker.Tracking} both trackers hand out.
 */
final class Samples {

  private final long start = System.nanoTime();
  private final List<double[]> samples = new ArrayList<>();
  private double totalMb;

  /** Records {@code usedMb} of {@code totalMb}, taken at {@code takenNanos} (System.nanoTime). */
  synchronized void add(long takenNanos, double usedMb, double totalMb) {
    samples.add(new double[] {(takenNanos - start) / 1e6, usedMb});
    this.totalMb = totalMb;
  }

  synchronized int count() {
    return samples.size();
  }

  /**
   * The tracking of these samples: stopping runs {@code halt} (which ends the sampling thread),
   * then gives the trace, with {@code emptyReason} when no sample was taken and {@code note} otherwise.
   */
  MemoryTracker.Tracking tracking(Runnable halt, String source, Supplier<String> emptyReason, String note) {
    return new MemoryTracker.Tracking() {
      @Override
      public int count() {
        return Samples.this.count();
      }

      @Override
      public MemoryTrace stop() {
        halt.run();
        synchronized (Samples.this) {
          return samples.isEmpty() ? new MemoryTrace(List.of(), null, source, emptyReason.get())
              : new MemoryTrace(samples, totalMb, source, note);
        }
      }
    };
  }
}
