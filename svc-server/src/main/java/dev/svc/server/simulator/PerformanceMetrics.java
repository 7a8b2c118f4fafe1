package dev.svc.server.simulator;

import dev.svc.core.metrics.DistributionSummary;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * Made-up but self-consistent performance metrics (throughput, latency, memory, warmup): each
 * simulated request gets a TTFT, a TPOT, an output length and inter-chunk gaps scaled by the GPU,
 * the engine, the model size and the load; the aggregates are then computed from those requests
 * exactly as docs/metrics.md, "Per-request metrics" defines them.
 */
final class PerformanceMetrics {

  /** Inter-chunk gaps kept per request (a sample of its stream is enough for the pooled distribution). */
  private static final int GAPS_PER_REQUEST = 32;

  private PerformanceMetrics() {
  }

  static BenchmarkOutcome generate(BenchmarkProfile profile, SimulatedHost host, String engine, double billions,
      RandomGenerator random) {
    int n = profile.iterations();
    int c = Math.max(1, profile.concurrency());
    double speed = GpuSpecs.speed(host.gpuModel()) * engineFactor(engine) * (host.hasGpu() ? 1 : 0.05);
    double tpotBase = Math.max(2.0, 0.9 * billions / speed) * (1 + 0.08 * (c - 1));
    double ttftBase = (15 + 2.5 * billions / speed) * (1 + 0.15 * (c - 1));
    boolean warmup = profile.name().equals("warmup");
    double coldAmplitude = random.nextDouble(1.5, 3.0);
    double coldDecay = random.nextDouble(0.7, 1.3);

    double[] ttft = new double[n];
    double[] tpot = new double[n];
    double[] e2e = new double[n];
    double[] gaps = new double[n * GAPS_PER_REQUEST];
    int gapCount = 0;
    long tokens = 0;
    for (int i = 0; i < n; i++) {
      double cold = warmup ? coldAmplitude * Math.exp(-i / coldDecay) : 0;
      int out = outputTokens(profile.maxTokens(), random);
      tokens += out;
      ttft[i] = ttftBase * spread(0.2, random) * (1 + cold);
      tpot[i] = tpotBase * spread(0.08, random) * (1 + cold);
      e2e[i] = ttft[i] + tpot[i] * (out - 1);
      for (int g = 0; g < Math.min(out - 1, GAPS_PER_REQUEST); g++) {
        double stall = random.nextDouble() < 0.01 ? random.nextDouble(3, 6) : 1;
        gaps[gapCount++] = tpot[i] * spread(0.25, random) * stall;
      }
    }
    double busyMs = Arrays.stream(e2e).sum();
    double windowS = c == 1 ? (busyMs + n * random.nextDouble(2, 8)) / 1000 : busyMs / c * 1.05 / 1000;
    double tokenThroughput = tokens / windowS;

    JsonObject metrics = new JsonObject()
        .put(MetricKeys.AVG_TPS, round2(tokenThroughput))
        .put(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, round2(tokenThroughput))
        .put(MetricKeys.REQUEST_THROUGHPUT, Math.round(n / windowS * 1000) / 1000.0)
        .put(MetricKeys.TTFT_MS, DistributionSummary.of(ttft).toJson(2))
        .put(MetricKeys.TPOT_MS, DistributionSummary.of(tpot).toJson(2))
        .put(MetricKeys.E2E_MS, DistributionSummary.of(e2e).toJson(2))
        .put(MetricKeys.ICG_MS, DistributionSummary.of(gapCount == 0 ? tpot : Arrays.copyOf(gaps, gapCount)).toJson(2))
        .put(MetricKeys.TOTAL_ITERATIONS, n)
        .put(MetricKeys.TOTAL_TOKENS_GENERATED, tokens)
        .put(MetricKeys.TOKEN_COUNT_SOURCE, MetricKeys.TOKEN_COUNT_USAGE)
        .put(MetricKeys.GPU_MEMORY, GpuMemoryTrace.generate(host, engine, billions, windowS, random));
    if (warmup) {
      metrics.put(MetricKeys.STABILIZATION_ITERATION, stabilization(coldAmplitude, coldDecay, n));
    }
    return new BenchmarkOutcome(metrics, windowS);
  }

  /** Most requests run to max_tokens; some stop early. */
  private static int outputTokens(int maxTokens, RandomGenerator random) {
    int max = Math.max(2, maxTokens);
    return random.nextDouble() < 0.8 ? max : random.nextInt(Math.max(2, max / 2), max + 1);
  }

  /** A log-normal factor with mean 1. */
  private static double spread(double sigma, RandomGenerator random) {
    return Math.exp(sigma * random.nextGaussian() - sigma * sigma / 2);
  }

  /** The first iteration (1-based) whose cold-start slowdown is below 5 %. */
  static int stabilization(double amplitude, double decay, int iterations) {
    int i = (int) Math.floor(decay * Math.log(amplitude / 0.05)) + 2;
    return Math.max(1, Math.min(iterations, i));
  }

  /** Relative decode speed of an engine on the same GPU. */
  private static double engineFactor(String engine) {
    switch (engine) {
      case "vllm":
        return 1.0;
      case "tgi":
        return 0.9;
      case "llama_cpp":
        return 0.6;
      case "ollama":
        return 0.55;
      default:
        return 0.7;
    }
  }

  private static double round2(double value) {
    return Math.round(value * 100) / 100.0;
  }
}
