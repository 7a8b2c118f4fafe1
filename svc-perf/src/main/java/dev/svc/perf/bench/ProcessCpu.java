package dev.svc.perf.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.stream.Stream;

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

  /**
   * The process's CPU seconds so far by kind of thread (from each thread's name in
   * {@code /proc/<pid>/task/<tid>/comm}): the JIT compilers, the garbage collector, the main thread,
   * Vert.x's event loops and workers, and the rest.
   */
  public static Map<String, Double> byThreadKind(long pid) {
    Map<String, Double> kinds = new LinkedHashMap<>();
    for (String kind : new String[] {"JIT", "GC", "main", "event loops", "workers", "other"}) {
      kinds.put(kind, 0.0);
    }
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks.toList()) {
        try {
          String name = Files.readString(task.resolve("comm")).trim();
          double seconds = parseSeconds(Files.readString(task.resolve("stat"))).orElse(0);
          kinds.merge(threadKind(name), seconds, Double::sum);
        } catch (IOException threadEnded) {
          // a thread that ended meanwhile: its time is no longer listed per thread
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    return kinds;
  }

  /** The kind of a thread from its (15-character) Linux name. */
  static String threadKind(String name) {
    if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
      return "JIT";
    }
    if (name.startsWith("GC Thread") || name.startsWith("G1 ") || name.startsWith("ZWorker") || name.startsWith("ZDriver")
        || name.startsWith("VM Thread")) {
      return "GC";
    }
    if (name.equals("java")) {
      return "main";
    }
    if (name.startsWith("vert.x-eventloo") || name.startsWith("vert.x-acceptor")) {
      return "event loops";
    }
    if (name.startsWith("vert.x-worker") || name.startsWith("vert.x-internal")) {
      return "workers";
    }
    return "other";
  }

  /** "JIT 4.1 s, GC 0.4 s, main 1.1 s, …". */
  public static String describe(Map<String, Double> kinds) {
    StringBuilder text = new StringBuilder();
    kinds.forEach((kind, seconds) -> text.append(text.length() == 0 ? "" : ", ")
        .append(String.format(java.util.Locale.ROOT, "%s %.1f s", kind, seconds)));
    return text.toString();
  }
}
