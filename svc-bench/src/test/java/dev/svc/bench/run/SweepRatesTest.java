package dev.svc.bench.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.load.LoadModel;
import org.junit.jupiter.api.Test;

/** Where a sweep places its open-loop rates, and how many workers its max-throughput step runs. */
class SweepRatesTest {

  @Test
  void ratesAreEvenlySpacedStrictlyBetweenTheBaselineAndTheMaximum() {
    assertThat(Sweep.rates(20, 80)).containsExactly(32.0, 44.0, 56.0, 68.0);
    assertThat(Sweep.rates(0, 10)).containsExactly(2.0, 4.0, 6.0, 8.0);
    // three significant figures
    assertThat(Sweep.rates(1.2345, 7.891)).containsExactly(2.57, 3.9, 5.23, 6.56);
  }

  @Test
  void anEngineThatDoesNotBatchGetsNoRates() {
    assertThat(Sweep.rates(20, 20)).isEmpty();
    assertThat(Sweep.rates(20, 19)).isEmpty();
    // too close to place a rate of three significant figures strictly between them
    assertThat(Sweep.rates(0.1234, 0.1236)).isEmpty();
  }

  @Test
  void theMaxThroughputStepUsesTheBenchmarksConcurrencyOrSixteen() {
    assertThat(Sweep.maxConcurrency(LoadModel.sweep(8))).isEqualTo(8);
    assertThat(Sweep.maxConcurrency(LoadModel.parse("sweep"))).isEqualTo(Sweep.DEFAULT_CONCURRENCY).isEqualTo(16);
  }
}
