package dev.svc.perf.bench;

import dev.svc.bench.perf.MachineCpu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine's state over a measured span, for the line printed beside each figure: the load
 * average at its end and, from the kernel's CPU counters, the share of all cores' time that was
 * idle and the share the hypervisor gave to other guests ({@link MachineCpu}).
 */
public final class MachineState {

  private final MachineCpu start;

  private MachineState(MachineCpu start) {
    this.start = start;
  }

  public static MachineState begin() {
    return new MachineState(MachineCpu.now());
  }

  /** "load 1.20 1.50 1.80, 45 % idle, 0.5 % stolen by the hypervisor" since {@link #begin}. */
  public String since() {
    return "load " + loadAverage() + ", " + MachineCpu.now().since(start).replaceFirst("^machine: ", "");
  }

  /** The 1, 5 and 15 minute load averages of /proc/loadavg, or "unknown". */
  public static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | ArrayIndexOutOfBoundsException e) {
      return "unknown";
    }
  }

  /** Cores, Java version and the load average now: the first line of every server benchmark. */
  public static String header() {
    return String.format("machine: %d cores, Java %s, load %s", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), loadAverage());
  }
}
