package dev.svc.engines.lifecycle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Finds NVIDIA GPUs the way the driver shows them: one directory per GPU under
 * {@code /proc/driver/nvidia/gpus}; failing that, the {@code GPU n: …} lines of {@code nvidia-smi -L}.
 */
final class NvidiaGpuProbe implements GpuProbe {

  private final Path procGpus;
  private final List<String> smiCommand;

  NvidiaGpuProbe() {
    this(Path.of("/proc/driver/nvidia/gpus"), List.of("nvidia-smi", "-L"));
  }

  NvidiaGpuProbe(Path procGpus, List<String> smiCommand) {
    this.procGpus = procGpus;
    this.smiCommand = List.copyOf(smiCommand);
  }

  @Override
  public GpuAvailability detect() {
    long inProc = countProcEntries();
    if (inProc > 0) {
      return GpuAvailability.found(inProc + " NVIDIA GPU(s) listed in " + procGpus);
    }
    String procNote = Files.isDirectory(procGpus) ? procGpus + " lists no GPU" : procGpus + " does not exist";
    Process process;
    try {
      process = new ProcessBuilder(smiCommand).redirectErrorStream(true).start();
    } catch (IOException e) {
      return GpuAvailability.none(
          "no NVIDIA GPU on this host (" + procNote + " and " + smiCommand.get(0) + " is not installed)");
    }
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return GpuAvailability.none("no NVIDIA GPU usable (" + procNote + " and " + smiCommand.get(0) + " hung)");
      }
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      long gpus = output.lines().filter(line -> line.startsWith("GPU ")).count();
      if (process.exitValue() == 0 && gpus > 0) {
        return GpuAvailability.found(gpus + " NVIDIA GPU(s) listed by " + smiCommand.get(0));
      }
      String firstLine = output.lines().findFirst().orElse("").strip();
      return GpuAvailability.none("no NVIDIA GPU usable (" + procNote + "; " + smiCommand.get(0)
          + " exited " + process.exitValue() + (firstLine.isEmpty() ? "" : ": " + firstLine) + ")");
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      return GpuAvailability.none("GPU detection was interrupted");
    } catch (IOException e) {
      return GpuAvailability.none("no NVIDIA GPU usable (" + procNote + "; " + e.getMessage() + ")");
    }
  }

  private long countProcEntries() {
    if (!Files.isDirectory(procGpus)) {
      return 0;
    }
    try (Stream<Path> entries = Files.list(procGpus)) {
      return entries.count();
    } catch (IOException e) {
      return 0;
    }
  }
}
