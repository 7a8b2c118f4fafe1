package dev.svc.bench.hardware;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    Samples samples = new Samples();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "svc-system-memory");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleAtFixedRate(() -> {
      double[] reading = read();
      if (reading != null) {
        samples.add(System.nanoTime(), reading[0], reading[1]);
      }
    }, 0, INTERVAL_MS, TimeUnit.MILLISECONDS);
    return samples.tracking(timer::shutdownNow, "system", () -> "cannot read " + meminfo, note);
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
