package dev.svc.server.simulator;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.random.RandomGenerator;

/**
 * A made-up GPU memory trace (docs/metrics.md, "GPU memory") of the GPU the engine runs on: one
 * {@code [t_ms, used_mb]} sample every 100 ms, with peak, average and utilisation derived from the
 * samples. Engines that reserve memory up front (vLLM, TGI) sit near 90 % of the card; the others
 * hold the weights plus a KV cache. No sample exceeds the card's memory. Without a GPU the figures
 * are null, with the reason.
 */
final class GpuMemoryTrace {

  /** Longest trace kept: a sample every 100 ms for 10 minutes. */
  static final int MAX_SAMPLES = 6_000;

  private GpuMemoryTrace() {
  }

  static JsonObject generate(SimulatedHost host, String engine, double modelBillions, double durationSeconds,
      RandomGenerator random) {
    if (!host.hasGpu()) {
      return new JsonObject().putNull(MetricKeys.PEAK_MEMORY_MB).putNull(MetricKeys.AVG_MEMORY_MB)
          .putNull(MetricKeys.VRAM_UTILIZATION_PCT).put(MetricKeys.SAMPLES, new JsonArray())
          .put(MetricKeys.GPU_MEMORY_REASON, "The agent has no GPU");
    }
    int vramMb = host.vramMb();
    double ceiling = vramMb * 0.97;
    double steady = Math.min(ceiling * 0.995, steadyMb(engine, vramMb, modelBillions, random));
    double start = steady * random.nextDouble(0.96, 0.99);
    double rampMs = random.nextDouble(1_000, 4_000);
    long durationMs = Math.max(MetricKeys.GPU_SAMPLE_INTERVAL_MS, Math.round(durationSeconds * 1000));
    int count = (int) Math.min(MAX_SAMPLES, durationMs / MetricKeys.GPU_SAMPLE_INTERVAL_MS + 1);

    JsonArray samples = new JsonArray();
    long peak = 0;
    double sum = 0;
    for (int i = 0; i < count; i++) {
      long t = i * MetricKeys.GPU_SAMPLE_INTERVAL_MS;
      double level = t >= rampMs ? steady : start + (steady - start) * (t / rampMs);
      double noisy = level + random.nextGaussian() * steady * 0.002;
      long used = Math.max(1, Math.min((long) ceiling, Math.round(noisy)));
      samples.add(new JsonArray().add(t).add(used));
      peak = Math.max(peak, used);
      sum += used;
    }
    double avg = sum / count;
    return new JsonObject()
        .put(MetricKeys.PEAK_MEMORY_MB, peak)
        .put(MetricKeys.AVG_MEMORY_MB, Math.round(avg * 10) / 10.0)
        .put(MetricKeys.VRAM_UTILIZATION_PCT, Math.round(peak * 1000.0 / vramMb) / 10.0)
        .put(MetricKeys.SAMPLES, samples);
  }

  /** Where the engine's memory settles once the model is loaded and serving. */
  private static double steadyMb(String engine, int vramMb, double billions, RandomGenerator random) {
    switch (engine) {
      case "vllm":
        // gpu_memory_utilization 0.9 plus the CUDA context
        return vramMb * 0.9 + random.nextDouble(350, 650);
      case "tgi":
        return vramMb * random.nextDouble(0.85, 0.93);
      default:
        // GGUF weights at about 4.8 bits per parameter, a KV cache and the runtime
        double weights = billions * 1e9 * 0.6 / (1024 * 1024);
        return weights + random.nextDouble(1_024, 3_072) + random.nextDouble(300, 600);
    }
  }
}
