package dev.svc.bench.hardware;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * GPU memory through one long-running {@code nvidia-smi --query-gpu=... -lms 100}, which prints a
 * row per GPU every 100 ms; the rows of one tick are summed (all GPUs of the host).
 */
final class NvidiaSmiTracker implements MemoryTracker {

  private final String command;
  private final int gpus;

  NvidiaSmiTracker(String command, int gpus) {
    this.command = command;
    this.gpus = gpus;
  }

  @Override
  public Tracking start() {
    Samples samples = new Samples();
    String[] problem = {null};
    Process process;
    try {
      process = new ProcessBuilder(command, "--query-gpu=index,memory.used,memory.total", "--format=csv,noheader,nounits",
          "-lms", String.valueOf(INTERVAL_MS)).redirectErrorStream(true).start();
    } catch (IOException e) {
      return Tracking.unavailable(command + " could not be started: " + e.getMessage());
    }
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        double used = 0;
        double size = 0;
        int rows = 0;
        long tickStart = 0;
        while ((line = in.readLine()) != null) {
          String[] f = line.split(",\\s*");
          Double u = f.length == 3 ? parse(f[1]) : null;
          Double t = f.length == 3 ? parse(f[2]) : null;
          if (u == null || t == null) {
            continue;
          }
          if (rows == 0) {
            tickStart = System.nanoTime();
          }
          used += u;
          size += t;
          if (++rows == gpus) {
            samples.add(tickStart, used, size);
            used = 0;
            size = 0;
            rows = 0;
          }
        }
      } catch (IOException e) {
        problem[0] = command + " output could not be read: " + e.getMessage();
      }
    }, "svc-gpu-memory");
    reader.setDaemon(true);
    reader.start();
    return samples.tracking(() -> {
      process.destroy();
      try {
        reader.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "nvidia-smi", () -> problem[0] != null ? problem[0] : command + " printed no sample", null);
  }

  private static Double parse(String field) {
    try {
      return NvidiaSmi.number(field);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
