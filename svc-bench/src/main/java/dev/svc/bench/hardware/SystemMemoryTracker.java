package dev.svc.bench.hardware;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** System memory in use (MemTotal − MemAvailable of /proc/meminfo), for hosts whose GPU shares it. */
final class SystemMemoryTracker implements MemoryTracker {

  private final Path meminfo;
  private final String note;

  SystemMemoryTracker(Path meminfo, String note) {
    this.meminfo = meminfo;
    this.note = note;
  }

  @Override
  public Tracking start() {
    long start = System.nanoTime();
    List<double[]> samples = new ArrayList<>();
    double[] total = {0};
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "svc-system-memory");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleAtFixedRate(() -> {
      double[] reading = read();
      if (reading != null) {
        synchronized (samples) {
          samples.add(new double[] {(System.nanoTime() - start) / 1e6, reading[0]});
          total[0] = reading[1];
        }
      }
    }, 0, INTERVAL_MS, TimeUnit.MILLISECONDS);
    return new Tracking() {
      @Override
      public int count() {
        synchronized (samples) {
          return samples.size();
        }
      }

      @Override
      public MemoryTrace stop() {
        timer.shutdownNow();
        synchronized (samples) {
          return new MemoryTrace(samples, samples.isEmpty() ? null : total[0], "system",
              samples.isEmpty() ? "cannot read " + meminfo : note);
        }
      }
    };
  }

  /** [used MB, total MB], or null when the file cannot be read. */
  private double[] read() {
    try {
      long totalKb = -1;
      long availableKb = -1;
      for (String line : Files.readAllLines(meminfo)) {
        if (line.startsWith("MemTotal:")) {
          totalKb = kb(line);
        } else if (line.startsWith("MemAvailable:")) {
          availableKb = kb(line);
        }
      }
      return totalKb < 0 || availableKb < 0 ? null : new double[] {(totalKb - availableKb) / 1024.0, totalKb / 1024.0};
    } catch (IOException | NumberFormatException e) {
      return null;
    }
  }

  private static long kb(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", ""));
  }
}
