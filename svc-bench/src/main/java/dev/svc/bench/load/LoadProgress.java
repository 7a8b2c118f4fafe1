package dev.svc.bench.load;

import dev.svc.bench.measure.RequestRecord;
import java.util.concurrent.atomic.LongAdder;

/**
 * How far a running load has got, for a progress display on another thread: warmup and measured
 * requests completed out of their totals, measured requests that failed, and a free-form stage
 * (a sweep's step). The runner adds one per completed request (no allocation); a new run restarts
 * the completed counts, while failures add up over every run that reports here.
 */
public final class LoadProgress {

  private final LongAdder warmupDone = new LongAdder();
  private final LongAdder done = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private volatile int warmupTotal;
  private volatile int total;
  private volatile String stage = "";

  /** What a display shows at one moment. */
  public record Snapshot(String stage, long warmupDone, int warmupTotal, long done, int total, long errors) {

    public boolean warmingUp() {
      return warmupDone < warmupTotal && done == 0;
    }
  }

  /** Names the part of a benchmark that is running (empty: none). */
  public void stage(String label) {
    stage = label == null ? "" : label;
  }

  public Snapshot snapshot() {
    return new Snapshot(stage, warmupDone.sum(), warmupTotal, done.sum(), total, errors.sum());
  }

  /** A run of {@code warmup} then {@code count} requests begins; nothing of the previous run is in flight. */
  void begin(int warmup, int count) {
    warmupDone.reset();
    done.reset();
    warmupTotal = warmup;
    total = count;
  }

  void completed(RequestRecord record, boolean warmup) {
    if (warmup) {
      warmupDone.increment();
      return;
    }
    done.increment();
    if (!record.ok()) {
      errors.increment();
    }
  }
}
