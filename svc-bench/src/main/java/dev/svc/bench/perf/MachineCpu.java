package dev.svc.bench.perf;

import oshi.hardware.CentralProcessor;
import oshi.hardware.CentralProcessor.TickType;

/**
 * The whole machine's CPU tick counters at one moment (all cores, all processes; OSHI reads
 * {@code /proc/stat} on Linux). Between two readings they say how busy the machine was and how much
 * of its CPU time the hypervisor gave to someone else ("steal"): on a virtual machine the host can
 * hold a guest's cores for milliseconds at a time, and a chunk that arrives then waits however
 * little the client itself does. The benchmark prints both beside its latency figures so that a
 * run on a disturbed machine can be told from a slow client.
 */
public record MachineCpu(long[] ticks) {

  private static final CentralProcessor PROCESSOR = new oshi.SystemInfo().getHardware().getProcessor();

  public static MachineCpu now() {
    return new MachineCpu(PROCESSOR.getSystemCpuLoadTicks());
  }

  /** Idle and stolen shares of the machine's CPU time from {@code before} to this reading, for a report line. */
  public String since(MachineCpu before) {
    long total = 0;
    for (int i = 0; i < ticks.length; i++) {
      total += ticks[i] - before.ticks[i];
    }
    if (total <= 0) {
      return "machine: no CPU ticks counted";
    }
    return String.format("machine: %.0f %% idle, %.1f %% stolen by the hypervisor",
        100.0 * ticksSince(before, TickType.IDLE) / total, 100.0 * ticksSince(before, TickType.STEAL) / total);
  }

  /** Ticks of one type counted from {@code before} to this reading. */
  private long ticksSince(MachineCpu before, TickType type) {
    return ticks[type.getIndex()] - before.ticks[type.getIndex()];
  }
}
