package dev.svc.bench.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The emulator's lateness histogram: constant memory, percentiles within its buckets' precision, the exact maximum. */
class LatenessTest {

  @Test
  void percentilesFallWithinABucketOfTheValuesAndTheMaximumIsExact() {
    Lateness lateness = new Lateness();
    for (int i = 0; i < 98; i++) {
      lateness.record(100_000); // 0.1 ms
    }
    lateness.record(5_000_000);
    lateness.record(20_123_456);
    Lateness.Summary s = lateness.summary();
    assertThat(s.count()).isEqualTo(100);
    assertThat(s.p50Ms()).isCloseTo(0.1, within(0.1 / 64));
    assertThat(s.p99Ms()).isCloseTo(5.0, within(5.0 / 64));
    assertThat(s.maxMs()).isEqualTo(20.123456);
  }

  @Test
  void earlyCountsAsOnTimeAndNothingRecordedIsAllZero() {
    Lateness lateness = new Lateness();
    assertThat(lateness.summary()).isEqualTo(new Lateness.Summary(0, 0, 0, 0));
    lateness.record(-5_000);
    lateness.record(Long.MAX_VALUE);
    assertThat(lateness.summary().p50Ms()).isLessThanOrEqualTo(0.001);
    assertThat(lateness.summary().maxMs()).isEqualTo(Long.MAX_VALUE / 1e6);
  }

  @Test
  void everyBucketsUpperEdgeIsAboveTheValuesItHolds() {
    for (long micros : new long[] {0, 1, 127, 128, 129, 1000, 65_535, 1L << 20, (1L << 39) + 12345, 1L << 45}) {
      int index = Lateness.index(micros);
      assertThat(Lateness.upperEdge(index)).as("%s µs", micros).isGreaterThan(Math.min(micros, (1L << 40) - 1));
      assertThat(index == 0 || Lateness.upperEdge(index - 1) <= micros).as("%s µs above the bucket below", micros).isTrue();
    }
  }
}
