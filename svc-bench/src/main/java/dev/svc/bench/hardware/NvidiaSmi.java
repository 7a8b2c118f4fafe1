package dev.svc.bench.hardware;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the GPUs through {@code nvidia-smi}'s CSV query interface, the way NVML's command-line
 * front end documents it. Blocking: call from a worker thread.
 */
public final class NvidiaSmi {

  /** The columns asked for, in order. */
  static final String QUERY = "index,name,memory.total,memory.used,driver_version,compute_cap";
  private static final Pattern CUDA = Pattern.compile("CUDA Version:\\s*([0-9][0-9.]*)");

  private final String command;

  public NvidiaSmi(String command) {
    this.command = command;
  }

  public static NvidiaSmi system() {
    return new NvidiaSmi("nvidia-smi");
  }

  public String command() {
    return command;
  }

  /** The GPUs, or empty with the reason when nvidia-smi is absent or fails. */
  public Listing gpus() {
    Output out = run(List.of(command, "--query-gpu=" + QUERY, "--format=csv,noheader,nounits"));
    if (out.problem() != null) {
      return new Listing(List.of(), out.problem());
    }
    List<GpuInfo> gpus = parse(out.text());
    return new Listing(gpus, gpus.isEmpty() ? command + " lists no GPU" : null);
  }

  /** The CUDA version the driver supports, from nvidia-smi's banner. */
  public Optional<String> cudaVersion() {
    Output out = run(List.of(command));
    return out.problem() != null ? Optional.empty() : cudaVersion(out.text());
  }

  /**
   * What the GPUs are doing now, for the agent's heartbeat: the mean utilisation over all GPUs and
   * the memory used summed over them; a figure nvidia-smi reports as [N/A] (unified memory) is null.
   * Empty when nvidia-smi is absent, fails or lists no GPU.
   */
  public Optional<Usage> usage() {
    Output out = run(List.of(command, "--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits"));
    return out.problem() != null ? Optional.empty() : parseUsage(out.text());
  }

  /** Mean GPU utilisation (percent) and memory used (MB, all GPUs); either null when not reported. */
  public record Usage(Double utilizationPct, Double memoryUsedMb) {
  }

  static Optional<Usage> parseUsage(String csv) {
    double utilization = 0;
    double memory = 0;
    int utilizations = 0;
    int memories = 0;
    int rows = 0;
    for (String line : csv.split("\\R")) {
      String[] f = line.split(",\\s*");
      if (line.isBlank() || f.length != 2) {
        continue;
      }
      try {
        Double u = number(f[0]);
        Double m = number(f[1]);
        rows++;
        if (u != null) {
          utilization += u;
          utilizations++;
        }
        if (m != null) {
          memory += m;
          memories++;
        }
      } catch (NumberFormatException e) {
        // not a GPU row
      }
    }
    if (rows == 0) {
      return Optional.empty();
    }
    return Optional.of(new Usage(utilizations == 0 ? null : utilization / utilizations, memories == 0 ? null : memory));
  }

  /** The GPUs found, or none and why. */
  public record Listing(List<GpuInfo> gpus, String problem) {
  }

  static List<GpuInfo> parse(String csv) {
    List<GpuInfo> out = new ArrayList<>();
    for (String line : csv.split("\\R")) {
      if (line.isBlank()) {
        continue;
      }
      String[] f = line.split(",\\s*");
      if (f.length < 5) {
        continue;
      }
      try {
        out.add(new GpuInfo(Integer.parseInt(f[0].trim()), f[1].trim(), number(f[2]), number(f[3]), f[4].trim(),
            f.length > 5 ? capability(f[5]) : null));
      } catch (NumberFormatException e) {
        // a line that is not a GPU row (a warning nvidia-smi printed) is skipped
      }
    }
    return out;
  }

  static Optional<String> cudaVersion(String banner) {
    Matcher m = CUDA.matcher(banner);
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** A number, or null for nvidia-smi's "[N/A]" / "[Not Supported]". */
  static Double number(String field) {
    String value = field.trim();
    if (value.startsWith("[") || value.isEmpty()) {
      return null;
    }
    return Double.parseDouble(value);
  }

  private static int[] capability(String field) {
    String value = field.trim();
    if (!value.matches("\\d+\\.\\d+")) {
      return null;
    }
    String[] parts = value.split("\\.");
    return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
  }

  private record Output(String text, String problem) {
  }

  private Output run(List<String> args) {
    Process process;
    try {
      process = new ProcessBuilder(args).redirectErrorStream(true).start();
    } catch (IOException e) {
      return new Output("", command + " is not installed (no NVIDIA driver on this host)");
    }
    try {
      byte[] bytes = process.getInputStream().readAllBytes();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Output("", command + " did not answer within 20 s");
      }
      String text = new String(bytes, StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        String first = text.lines().findFirst().orElse("").strip();
        return new Output("", command + " exited " + process.exitValue() + (first.isEmpty() ? "" : ": " + first));
      }
      return new Output(text, null);
    } catch (IOException e) {
      return new Output("", command + " failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return new Output("", command + " was interrupted");
    }
  }
}
