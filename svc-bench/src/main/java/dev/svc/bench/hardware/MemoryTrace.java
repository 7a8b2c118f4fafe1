package dev.svc.bench.hardware;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The memory samples of one benchmark ({@code [t_ms, used_mb]}, t from the start of tracking),
 * the memory size they are measured against, where they came from, and — when there are none —
 * why. Turned into metrics.json's {@code gpu_memory}: peak and average used MB, and
 * {@code vram_utilization_pct} = peak / total × 100. Without samples every figure is null.
 */
public record MemoryTrace(List<double[]> samples, Double totalMb, String source, String reason) {

  public MemoryTrace {
    samples = List.copyOf(samples);
  }

  public static MemoryTrace unavailable(String reason) {
    return new MemoryTrace(List.of(), null, null, reason);
  }

  public JsonObject toJson() {
    JsonObject out = new JsonObject();
    if (samples.isEmpty()) {
      return out.putNull("peak_memory_mb").putNull("avg_memory_mb").putNull("vram_utilization_pct")
          .put("samples", new JsonArray()).put("source", source).put("reason", reason == null ? "no samples were taken" : reason);
    }
    double peak = samples.stream().mapToDouble(s -> s[1]).max().orElseThrow();
    double avg = samples.stream().mapToDouble(s -> s[1]).average().orElseThrow();
    JsonArray points = new JsonArray();
    samples.forEach(s -> points.add(new JsonArray().add(Math.round(s[0])).add(round(s[1]))));
    out.put("peak_memory_mb", round(peak)).put("avg_memory_mb", round(avg))
        .put("vram_utilization_pct", totalMb == null || totalMb <= 0 ? null : round(peak / totalMb * 100))
        .put("samples", points).put("source", source);
    if (reason != null) {
      out.put("reason", reason);
    }
    return out;
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
