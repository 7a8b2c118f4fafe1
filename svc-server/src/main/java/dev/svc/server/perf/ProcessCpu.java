package dev.svc.server.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

/**
 * The CPU time a process has used (user + system, all its threads), from {@code /proc/<pid>/stat}.
 * On a machine shared with other work, wall-clock figures stretch with the load, while the CPU
 * seconds a server spends per request or to start barely do: the benchmarks print both.
 */
public final class ProcessCpu {

  /** Clock ticks per second of /proc's counters: USER_HZ, 100 on every Linux architecture svc runs on. */
  static final double TICKS_PER_SECOND = 100;

  private ProcessCpu() {
  }

  /** User plus system CPU seconds of the process so far; empty when it is gone. */
  public static OptionalDouble seconds(long pid) {
    try {
      return parseSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException e) {
      return OptionalDouble.empty();
    }
  }

  /** utime and stime, fields 14 and 15 of a stat line, counted after the command name (which may hold spaces). */
  static OptionalDouble parseSeconds(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      return OptionalDouble.empty();
    }
    String[] fields = stat.substring(close + 1).trim().split("\\s+");
    // fields[0] is field 3 (state): utime is field 14, stime field 15
    if (fields.length < 13) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND);
  }
}
