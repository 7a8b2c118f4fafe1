package dev.svc.perf.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The resident set size of a process, from {@code VmRSS} in {@code /proc/<pid>/status} (Linux): what
 * the process holds in RAM now, heap, code, thread stacks and native buffers together. Sampled by
 * the server's benchmarks; reusable by any other driver that knows a pid. From a shell:
 * {@code java -cp "svc-server/target/svc-server.jar:svc-server/target/lib/*" dev.svc.perf.bench.Rss <pid> [every ms] [samples]}.
 */
public final class Rss {

  private Rss() {
  }

  /** VmRSS in KiB; empty when the process is gone or the file has no such line (not Linux). */
  public static OptionalLong kib(long pid) {
    try {
      return parseVmRssKib(Files.readString(Path.of("/proc", Long.toString(pid), "status")));
    } catch (IOException e) {
      return OptionalLong.empty();
    }
  }

  /** The {@code VmRSS:  123456 kB} line of a /proc status file, in KiB. */
  static OptionalLong parseVmRssKib(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("VmRSS:")) {
        String[] parts = line.substring("VmRSS:".length()).trim().split("\\s+");
        if (parts.length == 2 && parts[1].equals("kB") && parts[0].matches("\\d{1,15}")) {
          return OptionalLong.of(Long.parseLong(parts[0]));
        }
      }
    }
    return OptionalLong.empty();
  }

  public static String mib(long kib) {
    return String.format(java.util.Locale.ROOT, "%.0f MiB", kib / 1024.0);
  }

  /** Samples a process's RSS on a daemon thread until closed: the highest and the last value. */
  public static final class Sampler implements AutoCloseable {
    private final Thread thread;
    private volatile long maxKib;
    private volatile long lastKib;
    private volatile boolean stop;

    public Sampler(long pid, long everyMs) {
      thread = new Thread(() -> {
        while (!stop) {
          OptionalLong now = kib(pid);
          if (now.isPresent()) {
            lastKib = now.getAsLong();
            maxKib = Math.max(maxKib, lastKib);
          }
          try {
            Thread.sleep(everyMs); // a sampling period, not synchronisation
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "rss-sampler-" + pid);
      thread.setDaemon(true);
      thread.start();
    }

    public long maxKib() {
      return maxKib;
    }

    public long lastKib() {
      return lastKib;
    }

    @Override
    public void close() {
      stop = true;
      thread.interrupt();
    }
  }

  /** Prints the RSS of a pid every {@code every ms} (default 1000), {@code samples} times (default until it exits). */
  public static void main(String[] args) throws InterruptedException {
    if (args.length < 1 || !args[0].matches("\\d+")) {
      System.err.println("usage: Rss <pid> [every ms, default 1000] [samples, default until the process exits]");
      System.exit(2);
    }
    long pid = Long.parseLong(args[0]);
    long every = args.length > 1 ? Long.parseLong(args[1]) : 1000;
    long samples = args.length > 2 ? Long.parseLong(args[2]) : Long.MAX_VALUE;
    long start = System.nanoTime();
    for (long i = 0; i < samples; i++) {
      OptionalLong now = kib(pid);
      if (now.isEmpty()) {
        break;
      }
      System.out.printf(java.util.Locale.ROOT, "%8.1f s  %s%n", (System.nanoTime() - start) / 1e9, mib(now.getAsLong()));
      if (i + 1 < samples) {
        Thread.sleep(every);
      }
    }
  }
}
