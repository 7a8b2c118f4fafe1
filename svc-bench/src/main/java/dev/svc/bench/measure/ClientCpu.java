package dev.svc.bench.measure;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The client's own CPU over a benchmark's measured requests: the CPU time this process used, the
 * cores it may run on, its utilisation of them, the idle share of those cores, the time its
 * threads were runnable but waited for a core, and, where svc started the engine, the engine's CPU
 * over the same window and how many of the CPUs it may run on the client may not
 * ({@code engineOtherCores}).
 * {@link #saturationReason} says when the client, not the engine, set the pace. Samples read
 * {@code /proc}: take them off the event loop.
 */
public record ClientCpu(double windowS, double cpuS, int cores, Double coresIdle, Double runnableWaitS,
    Double engineCpuS, int engineOtherCores, String reason) {

  /** Without the engine's CPU: an engine svc did not start. */
  ClientCpu(double windowS, double cpuS, int cores, Double coresIdle, Double runnableWaitS, String reason) {
    this(windowS, cpuS, cores, coresIdle, runnableWaitS, null, 0, reason);
  }

  /**
   * The client used this share of its cores itself: it had no capacity left to send or read on
   * time, whatever else ran.
   */
  public static final double BUSY_LIMIT = 0.9;
  /**
   * Its cores had less than this share idle, the engine's CPU counted as idle: something other than
   * the engine under test kept every one of them busy.
   */
  public static final double IDLE_LIMIT = 0.05;
  /**
   * The client's threads waited for a core at least this share of the time they were ready to run:
   * starved, not merely sharing busy cores with an engine. Measured with {@code svc run} at 32
   * requests in flight: 0.85 pinned to one core beside three busy processes, 0.70 to 0.92 beside
   * one, 0.61 to 0.66 with its two cores on a machine whose load average was 10.
   */
  public static final double STARVED_LIMIT = 0.8;
  /**
   * Windows shorter than this get no verdict: over a fraction of a second, the CPU a JVM spends
   * after a burst of work (its compiler and collector threads) can fill the client's cores without
   * having delayed a request; a benchmark of 20 requests against a fast engine lasts 0.1 s.
   */
  public static final double MIN_WINDOW_S = 1.0;

  /**
   * What /proc and the JVM say at one instant. {@code engineCpuNs} is null where the engine's CPU is
   * not known, with {@code engineReason} when that needs saying; {@code engineOtherCores} is how many
   * of the engine's CPUs are not the client's.
   */
  public record Sample(long nanoTime, long processCpuNs, int cores, long[] idleTicks, long[] totalTicks,
      Map<String, Long> runnableWaitNs, String idleReason, String waitReason, Long engineCpuNs, int engineOtherCores,
      String engineReason) {
  }

  /** A sample of now, with the engine's CPU where it is known: reads {@code /proc}, so not on an event loop. */
  public static Sample sample(EngineCpu engine) {
    long cpu = processCpuNs();
    int cores = Runtime.getRuntime().availableProcessors();
    String idleReason = null;
    long[] idle = null;
    long[] total = null;
    BitSet allowed = null;
    BitSet online = null;
    try {
      allowed = allowedCpus(Files.readString(Path.of("/proc/self/status")));
      List<String> stat = Files.readAllLines(Path.of("/proc/stat"));
      List<long[]> lines = cpuTicks(stat, allowed);
      idle = lines.get(0);
      total = lines.get(1);
      online = listedCpus(stat);
    } catch (IOException | RuntimeException e) {
      idleReason = "no per-CPU times on this system (/proc/stat, /proc/self/status): " + e.getMessage();
    }
    Long engineCpu = null;
    int engineOtherCores = 0;
    String engineReason = engine.unknownReason();
    if (engine.known() && allowed != null) {
      try {
        EngineCpu.Reading reading = engine.read();
        engineCpu = reading.cpuNs();
        engineOtherCores = notShared(reading.cpus() != null ? reading.cpus() : online, allowed);
      } catch (IOException | RuntimeException e) {
        engineReason = "the engine's CPU could not be read: " + e.getMessage();
      }
    }
    String waitReason = null;
    Map<String, Long> wait = new HashMap<>();
    try (Stream<Path> threads = Files.list(Path.of("/proc/self/task"))) {
      for (Path thread : threads.toList()) {
        wait.put(thread.getFileName().toString(), runnableWaitNs(thread.resolve("schedstat")));
      }
    } catch (IOException | RuntimeException e) {
      waitReason = "no scheduler statistics on this system (/proc/self/task/*/schedstat): " + e.getMessage();
    }
    return new Sample(System.nanoTime(), cpu, cores, idle, total, wait, idleReason, waitReason, engineCpu, engineOtherCores,
        engineReason);
  }

  /** How many of {@code engine}'s CPUs {@code client} may not run on. */
  static int notShared(BitSet engine, BitSet client) {
    BitSet others = (BitSet) engine.clone();
    others.andNot(client);
    return others.cardinality();
  }

  /** The client's CPU from {@code start} to {@code end}. */
  public static ClientCpu between(Sample start, Sample end) {
    double window = (end.nanoTime() - start.nanoTime()) / 1e9;
    Double idle = null;
    String reason = start.idleReason() != null ? start.idleReason() : end.idleReason();
    if (reason == null) {
      long idleTicks = 0;
      long totalTicks = 0;
      for (int i = 0; i < Math.min(start.idleTicks().length, end.idleTicks().length); i++) {
        idleTicks += end.idleTicks()[i] - start.idleTicks()[i];
        totalTicks += end.totalTicks()[i] - start.totalTicks()[i];
      }
      if (totalTicks > 0) {
        idle = Math.max(0, Math.min(1, idleTicks / (double) totalTicks));
      } else {
        reason = "the window was shorter than a tick of the kernel's CPU accounting";
      }
    }
    String waitReason = start.waitReason() != null ? start.waitReason() : end.waitReason();
    Double wait = null;
    if (waitReason == null) {
      // per thread: one that ended in the window takes its wait with it, one that started there began at 0
      long waited = 0;
      for (Map.Entry<String, Long> thread : end.runnableWaitNs().entrySet()) {
        waited += Math.max(0, thread.getValue() - start.runnableWaitNs().getOrDefault(thread.getKey(), 0L));
      }
      wait = waited / 1e9;
    }
    if (reason == null) {
      reason = waitReason;
    }
    Double engine = null;
    String engineReason = start.engineReason() != null ? start.engineReason() : end.engineReason();
    if (start.engineCpuNs() != null && end.engineCpuNs() != null) {
      engine = Math.max(0, end.engineCpuNs() - start.engineCpuNs()) / 1e9;
    } else if (reason == null) {
      reason = engineReason;
    }
    return new ClientCpu(window, (end.processCpuNs() - start.processCpuNs()) / 1e9, end.cores(), idle, wait, engine,
        end.engineOtherCores(), reason);
  }

  /** CPU / (window × cores): the share of its cores the client used. */
  public double utilisation() {
    return windowS <= 0 || cores <= 0 ? 0 : cpuS / (windowS * cores);
  }

  /**
   * The idle share the client's cores would have had without the engine under test: their idle time
   * and the engine's CPU on them, over their capacity. The kernel does not say on which cores the
   * engine ran, so only what its other cores could not have held is counted on the client's: a lower
   * bound, so that an engine beside a pinned client never excuses other work that starved it. Null
   * where either is unknown.
   */
  public Double coresIdleWithoutEngine() {
    if (coresIdle == null || engineCpuS == null || windowS <= 0 || cores <= 0) {
      return null;
    }
    double onClientCores = Math.max(0, engineCpuS - windowS * engineOtherCores);
    return Math.min(1, coresIdle + onClientCores / (windowS * cores));
  }

  /** Waiting / (running + waiting) of the client's threads; null where unknown. */
  public Double starved() {
    if (runnableWaitS == null || runnableWaitS + cpuS <= 0) {
      return null;
    }
    return runnableWaitS / (runnableWaitS + cpuS);
  }

  /**
   * Why the client, not the engine, was the bottleneck; null when it was not. Either the client used
   * nearly all of its cores itself, or other work kept its cores busy while its threads spent most
   * of the time they were runnable waiting for one. The engine under test is not other work: a
   * local engine that keeps the client's cores busy is what is measured, so where its CPU is known
   * it counts as idle time; where it is not ({@code --endpoint}), busy cores count whoever kept them busy.
   */
  public String saturationReason() {
    if (windowS < MIN_WINDOW_S) {
      return null;
    }
    if (utilisation() >= BUSY_LIMIT) {
      return String.format(Locale.ROOT, "the client, not the engine, was the bottleneck: it used %.0f %% of its %d"
          + " core(s) (%.1f s of CPU in %.1f s), at or above %.0f %%", utilisation() * 100, cores, cpuS, windowS,
          BUSY_LIMIT * 100);
    }
    Double starved = starved();
    Double idle = engineCpuS == null ? coresIdle : coresIdleWithoutEngine();
    if (idle == null || starved == null || idle >= IDLE_LIMIT || starved < STARVED_LIMIT) {
      return null;
    }
    String busy = engineCpuS == null ? String.format(Locale.ROOT, "its %d core(s) were %.1f %% idle", cores,
        coresIdle * 100) : String.format(Locale.ROOT, "its %d core(s) were %.1f %% idle, %.1f %% counting the engine's"
        + " %.1f s of CPU as idle,", cores, coresIdle * 100, idle * 100, engineCpuS);
    return String.format(Locale.ROOT, "the client, not the engine, was the bottleneck: %s and its threads waited for a"
        + " core %.0f %% of the time they were ready to run (%.1f s waiting, %.1f s running)", busy, starved * 100,
        runnableWaitS, cpuS);
  }

  public JsonObject toJson() {
    JsonObject out = new JsonObject().put(MetricKeys.CLIENT_CPU_S, round(cpuS)).put(MetricKeys.CLIENT_CORES, cores)
        .put(MetricKeys.CLIENT_UTILISATION, round(utilisation()))
        .put(MetricKeys.CLIENT_CORES_IDLE, coresIdle == null ? null : round(coresIdle))
        .put(MetricKeys.CLIENT_RUNNABLE_WAIT_S, runnableWaitS == null ? null : round(runnableWaitS))
        .put(MetricKeys.CLIENT_ENGINE_CPU_S, engineCpuS == null ? null : round(engineCpuS))
        .put(MetricKeys.CLIENT_CORES_IDLE_WITHOUT_ENGINE, coresIdleWithoutEngine() == null ? null
            : round(coresIdleWithoutEngine()))
        .put(MetricKeys.WINDOW_S, round(windowS));
    return reason == null ? out : out.put(MetricKeys.CLIENT_CPU_REASON, reason);
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }

  private static long processCpuNs() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** The CPUs of {@code Cpus_allowed_list} in the text of /proc/self/status ("0-3,8"). */
  static BitSet allowedCpus(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("Cpus_allowed_list:")) {
        BitSet cpus = new BitSet();
        for (String part : line.substring(line.indexOf(':') + 1).trim().split(",")) {
          String[] range = part.trim().split("-");
          int from = Integer.parseInt(range[0]);
          int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
          cpus.set(from, to + 1);
        }
        return cpus;
      }
    }
    throw new IllegalStateException("no Cpus_allowed_list");
  }

  /** The CPUs that have a line of their own in /proc/stat: those online. */
  static BitSet listedCpus(List<String> stat) {
    BitSet cpus = new BitSet();
    for (String line : stat) {
      if (line.startsWith("cpu") && !line.startsWith("cpu ")) {
        cpus.set(Integer.parseInt(line.substring(3, line.indexOf(' '))));
      }
    }
    return cpus;
  }

  /**
   * Idle and total ticks of each allowed CPU's line of /proc/stat ("cpuN user nice system idle
   * iowait irq softirq steal ..."), in CPU order. Guest time is already in user, so it is left out.
   */
  static List<long[]> cpuTicks(List<String> stat, BitSet allowed) {
    List<Long> idle = new ArrayList<>();
    List<Long> total = new ArrayList<>();
    for (String line : stat) {
      if (!line.startsWith("cpu") || line.startsWith("cpu ")) {
        continue;
      }
      String[] fields = line.trim().split("\\s+");
      if (!allowed.get(Integer.parseInt(fields[0].substring(3)))) {
        continue;
      }
      long sum = 0;
      for (int i = 1; i < Math.min(fields.length, 9); i++) {
        sum += Long.parseLong(fields[i]);
      }
      idle.add(Long.parseLong(fields[4]) + Long.parseLong(fields[5]));
      total.add(sum);
    }
    if (idle.isEmpty()) {
      throw new IllegalStateException("none of the allowed CPUs in /proc/stat");
    }
    return List.of(idle.stream().mapToLong(Long::longValue).toArray(), total.stream().mapToLong(Long::longValue).toArray());
  }

  /** The second field of a thread's schedstat: nanoseconds it was runnable but waited for a core. */
  private static long runnableWaitNs(Path schedstat) {
    try {
      return Long.parseLong(Files.readString(schedstat).trim().split("\\s+")[1]);
    } catch (IOException e) {
      return 0; // the thread ended between the listing and the read
    }
  }
}
