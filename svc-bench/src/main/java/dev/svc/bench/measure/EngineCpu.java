package dev.svc.bench.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;

/**
 * Where the CPU of the engine under test is read, so that the client's CPU can tell the engine's
 * use of the client's cores from other work: a local process svc started (and its children), a
 * container's cgroup, or nothing for an engine svc did not start ({@code --endpoint}). Reads
 * {@code /proc} or {@code /sys}: not on an event loop.
 */
public final class EngineCpu {

  /** The kernel's clock ticks per second in {@code /proc/<pid>/stat} (USER_HZ: 100 on every Linux ABI). */
  static final long TICKS_PER_SECOND = 100;

  /**
   * What the engine had used up to one instant.
   *
   * @param cpuNs its CPU time since it started, in nanoseconds
   * @param cpus the CPUs it may run on; null when unknown (a container: as many as the host has)
   */
  public record Reading(long cpuNs, BitSet cpus) {
  }

  @FunctionalInterface
  private interface Source {
    Reading read() throws IOException;
  }

  private final Source source;
  private final String unknown;

  private EngineCpu(Source source, String unknown) {
    this.source = source;
    this.unknown = unknown;
  }

  /** An engine whose CPU is not known; {@code why} is null when that needs no saying (svc did not start it). */
  public static EngineCpu unknown(String why) {
    return new EngineCpu(null, why);
  }

  /** A local process svc started, with whatever processes it starts. */
  public static EngineCpu processTree(long pid) {
    return new EngineCpu(() -> processTreeReading(Path.of("/proc"), pid), null);
  }

  /**
   * A container, through its cgroup's {@code cpu.stat}: found under the systemd or the cgroupfs
   * layout of cgroup v2, or the engine's CPU is unknown with the reason.
   */
  public static EngineCpu container(String id) {
    return container(Path.of("/sys/fs/cgroup"), id);
  }

  static EngineCpu container(Path cgroupRoot, String id) {
    List<Path> candidates = List.of(cgroupRoot.resolve("system.slice/docker-" + id + ".scope/cpu.stat"),
        cgroupRoot.resolve("docker/" + id + "/cpu.stat"));
    Optional<Path> found = candidates.stream().filter(Files::isReadable).findFirst();
    return found.map(EngineCpu::cgroup).orElseGet(() -> unknown("the engine container's cgroup was not found (looked"
        + " for " + String.join(", ", candidates.stream().map(Path::toString).toList()) + ")"));
  }

  /** A cgroup (v2) by its {@code cpu.stat}, whose {@code usage_usec} is the CPU of every process in it. */
  static EngineCpu cgroup(Path cpuStat) {
    return new EngineCpu(() -> new Reading(usageUsec(Files.readAllLines(cpuStat)) * 1_000, null), null);
  }

  /** Whether there is anything to read. */
  public boolean known() {
    return source != null;
  }

  /** Why the engine's CPU is unknown; null when it is known, or when that needs no saying. */
  public String unknownReason() {
    return unknown;
  }

  /**
   * What the engine has used up to now.
   *
   * @throws IOException when it cannot be read (the engine exited, /proc is not there)
   * @throws IllegalStateException when the engine's CPU is not known
   */
  public Reading read() throws IOException {
    if (source == null) {
      throw new IllegalStateException("the engine's CPU is not known");
    }
    return source.read();
  }

  static Reading processTreeReading(Path proc, long pid) throws IOException {
    Path root = proc.resolve(Long.toString(pid));
    long ticks = ownAndReapedTicks(Files.readString(root.resolve("stat")));
    for (long child : descendants(pid)) {
      try {
        ticks += ownAndReapedTicks(Files.readString(proc.resolve(Long.toString(child)).resolve("stat")));
      } catch (IOException e) {
        // a child that ended after the listing: its CPU is in its parent's cutime once reaped
      }
    }
    BitSet cpus = ClientCpu.allowedCpus(Files.readString(root.resolve("status")));
    return new Reading(ticks * (1_000_000_000L / TICKS_PER_SECOND), cpus);
  }

  private static List<Long> descendants(long pid) {
    List<Long> out = new ArrayList<>();
    ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> out.add(d.pid())));
    return out;
  }

  /**
   * utime + stime + cutime + cstime of a line of {@code /proc/<pid>/stat}: its threads' CPU and that of
   * the children it reaped. The fields are counted after the command's closing parenthesis, since a
   * command may hold spaces.
   */
  static long ownAndReapedTicks(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    // fields[0] is the state, field 3 of the line; utime is field 14
    long sum = 0;
    for (int field = 14; field <= 17; field++) {
      sum += Long.parseLong(fields[field - 3]);
    }
    return sum;
  }

  static long usageUsec(List<String> cpuStat) {
    for (String line : cpuStat) {
      if (line.startsWith("usage_usec ")) {
        return Long.parseLong(line.substring("usage_usec ".length()).trim());
      }
    }
    throw new IllegalStateException("no usage_usec in cpu.stat");
  }
}
