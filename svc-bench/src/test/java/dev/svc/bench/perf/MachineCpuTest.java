package dev.svc.bench.perf;

import static org.assertj.core.api.Assertions.assertThat;

import oshi.hardware.CentralProcessor.TickType;
import org.junit.jupiter.api.Test;

/** The machine's idle and stolen CPU shares the load-generator benchmark prints beside its figures. */
class MachineCpuTest {

  @Test
  void sharesAreOfAllTheTicksCountedBetweenTwoReadings() {
    long[] before = new long[TickType.values().length];
    long[] after = before.clone();
    after[TickType.USER.getIndex()] = 500;
    after[TickType.IDLE.getIndex()] = 300;
    after[TickType.STEAL.getIndex()] = 125;
    after[TickType.SOFTIRQ.getIndex()] = 75;
    assertThat(new MachineCpu(after).since(new MachineCpu(before)))
        .isEqualTo("machine: 30 % idle, 12.5 % stolen by the hypervisor");
  }

  @Test
  void readingsOfThisMachineCountEveryTickType() {
    MachineCpu first = MachineCpu.now();
    MachineCpu second = MachineCpu.now();
    assertThat(first.ticks()).hasSize(TickType.values().length);
    for (int i = 0; i < first.ticks().length; i++) {
      assertThat(second.ticks()[i]).isGreaterThanOrEqualTo(first.ticks()[i]);
    }
    assertThat(first.ticks()[TickType.IDLE.getIndex()]).isPositive();
  }
}
