package dev.svc.bench.emulator;

import io.vertx.core.json.JsonObject;
import java.util.Locale;

/**
 * How late the emulator wrote something against its plan: a histogram of lateness in
 * microseconds, kept in constant memory however long the emulator runs (exact below 128 µs, within
 * 1/64 of the value above), with the exact maximum. Thread-safe.
 */
public final class Lateness {

  private static final int EXACT = 128;
  private static final int SUB_BUCKETS = 64;
  /** Up to 2^40 µs (12 days): anything later lands in the last bucket. */
  private static final int MAX_EXPONENT = 40;

  private final long[] counts = new long[EXACT + (MAX_EXPONENT - 6) * SUB_BUCKETS];
  private long count;
  private long maxNanos;

  /** Records one write {@code nanos} after it was due (anything below zero counts as on time). */
  public synchronized void record(long nanos) {
    long late = Math.max(0, nanos);
    counts[index(late / 1000)]++;
    count++;
    maxNanos = Math.max(maxNanos, late);
  }

  /** Writes recorded so far. */
  public synchronized long count() {
    return count;
  }

  /** The distribution so far, in ms: count, p50, p99 (each the upper edge of its bucket) and max. */
  public synchronized Summary summary() {
    if (count == 0) {
      return new Summary(0, 0, 0, 0);
    }
    return new Summary(count, Math.min(percentileMicros(50), maxNanos / 1000.0) / 1000,
        Math.min(percentileMicros(99), maxNanos / 1000.0) / 1000, maxNanos / 1e6);
  }

  /** A summary of lateness in ms. */
  public record Summary(long count, double p50Ms, double p99Ms, double maxMs) {

    public JsonObject toJson() {
      return new JsonObject().put("count", count).put("p50", round(p50Ms)).put("p99", round(p99Ms)).put("max", round(maxMs));
    }

    /** "p50 0.041 ms, p99 1.200 ms, max 3.300 ms". */
    public String brief() {
      return String.format(Locale.ROOT, "p50 %.3f ms, p99 %.3f ms, max %.3f ms", p50Ms, p99Ms, maxMs);
    }

    private static double round(double ms) {
      return Math.round(ms * 1000) / 1000.0;
    }
  }

  /** The upper edge, in µs, of the bucket that holds the p-th percentile. */
  private double percentileMicros(double p) {
    long rank = Math.max(1, (long) Math.ceil(p / 100 * count));
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return upperEdge(i);
      }
    }
    return upperEdge(counts.length - 1);
  }

  static int index(long micros) {
    if (micros < EXACT) {
      return (int) micros;
    }
    int exponent = Math.min(63 - Long.numberOfLeadingZeros(micros), MAX_EXPONENT - 1); // 7 and up
    long sub = exponent == MAX_EXPONENT - 1 && micros >= (1L << MAX_EXPONENT) ? SUB_BUCKETS - 1
        : (micros >> (exponent - 6)) & (SUB_BUCKETS - 1);
    return EXACT + (exponent - 7) * SUB_BUCKETS + (int) sub;
  }

  static double upperEdge(int index) {
    if (index < EXACT) {
      return index + 1;
    }
    int exponent = 7 + (index - EXACT) / SUB_BUCKETS;
    long sub = (index - EXACT) % SUB_BUCKETS;
    long width = 1L << (exponent - 6);
    return (SUB_BUCKETS + sub + 1) * (double) width;
  }
}
