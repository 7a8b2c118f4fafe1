package dev.svc.server.simulator;

import dev.svc.core.SvcVersion;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.EngineSpec;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * The log lines of a simulated run, in the order a real agent prints them: image check, container
 * start, health check, warmup or dataset, per-iteration progress, GPU memory, summary, cleanup.
 * The figures quoted are those of the run's metrics document.
 */
final class RunLog {

  /** Progress lines per benchmark. */
  static final int PROGRESS_LINES = 3;

  private RunLog() {
  }

  /**
   * @param containerTs the {@code <timestamp>} of the container's name {@code kitt-<timestamp>}
   * @param startupSeconds how long the engine took to become healthy
   */
  static List<String> lines(SimulatedTest test, BenchmarkProfile profile, SimulatedHost host, EngineSpec engine,
      String image, BenchmarkOutcome outcome, long containerTs, double startupSeconds, RandomGenerator random) {
    String model = test.modelPath();
    String container = "kitt-" + containerTs;
    String b = profile.name();
    JsonObject m = outcome.metrics();
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "svc %s on %s (simulated test agent): benchmark %s of suite %s, engine %s, model %s",
        SvcVersion.version(), host.name(), b, test.suiteName(), engine.name(), model));
    lines.add("Checking image " + image + ": present locally (sha256:" + hex(random, 6) + ")");
    lines.add("Starting container: " + dockerRun(engine, image, model, container, host));
    lines.add("Container " + container + " started (id " + hex(random, 6) + ")");
    lines.add(String.format(Locale.ROOT,
        "Health check: GET http://127.0.0.1:%d%s (first interval 1 s, doubling up to 10 s, timeout 300 s)",
        engine.defaultPort(), engine.healthPath()));
    lines.add(String.format(Locale.ROOT, "Engine healthy after %.1f s", startupSeconds));
    if (profile.quality()) {
      qualityLines(lines, profile, m, random);
    } else {
      performanceLines(lines, profile, m, random);
    }
    lines.add("Stopping and removing container " + container);
    lines.add("Results written to ~/.svc/results/" + ModelSize.name(model) + "/" + engine.name() + "/" + containerTs
        + "/metrics.json (simulated)");
    return List.copyOf(lines);
  }

  private static void performanceLines(List<String> lines, BenchmarkProfile p, JsonObject m, RandomGenerator random) {
    if (p.warmupRequests() > 0) {
      lines.add("Warmup: " + p.warmupRequests() + " requests with max_tokens 10 (excluded from statistics)");
    } else {
      lines.add("Warmup analysis: no separate warmup requests; measuring the cold start over " + p.iterations()
          + " iterations");
    }
    int n = p.iterations();
    long tokens = m.getLong(MetricKeys.TOTAL_TOKENS_GENERATED);
    double tps = m.getDouble(MetricKeys.OUTPUT_TOKEN_THROUGHPUT);
    for (int step = 1; step <= PROGRESS_LINES; step++) {
      int done = (int) Math.ceil((double) n * step / PROGRESS_LINES);
      long soFar = step == PROGRESS_LINES ? tokens : tokens * done / n;
      double rate = step == PROGRESS_LINES ? tps : tps * random.nextDouble(0.93, 1.04);
      lines.add(String.format(Locale.ROOT, "[%s] iteration %d/%d (%s): %d tokens, %.1f tok/s", p.name(), done, n,
          p.mode(), soFar, rate));
    }
    JsonObject gpu = m.getJsonObject(MetricKeys.GPU_MEMORY);
    if (gpu.getValue(MetricKeys.PEAK_MEMORY_MB) == null) {
      lines.add("GPU memory: not measured (" + gpu.getString(MetricKeys.GPU_MEMORY_REASON) + ")");
    } else {
      lines.add(String.format(Locale.ROOT, "GPU memory: peak %d MB (%.1f %% of VRAM), average %.1f MB, %d samples",
          gpu.getLong(MetricKeys.PEAK_MEMORY_MB), gpu.getDouble(MetricKeys.VRAM_UTILIZATION_PCT),
          gpu.getDouble(MetricKeys.AVG_MEMORY_MB), gpu.getJsonArray(MetricKeys.SAMPLES).size()));
    }
    JsonObject ttft = m.getJsonObject(MetricKeys.TTFT_MS);
    JsonObject tpot = m.getJsonObject(MetricKeys.TPOT_MS);
    JsonObject e2e = m.getJsonObject(MetricKeys.E2E_MS);
    String summary = String.format(Locale.ROOT,
        "Summary: %s passed: %.2f tok/s output, %.3f req/s, TTFT p50 %.1f ms p99 %.1f ms, TPOT p50 %.2f ms,"
            + " E2E p99 %.1f ms",
        p.name(), tps, m.getDouble(MetricKeys.REQUEST_THROUGHPUT), ttft.getDouble(MetricKeys.P50),
        ttft.getDouble(MetricKeys.P99), tpot.getDouble(MetricKeys.P50), e2e.getDouble(MetricKeys.P99));
    if (m.containsKey(MetricKeys.STABILIZATION_ITERATION)) {
      summary += ", stable from iteration " + m.getInteger(MetricKeys.STABILIZATION_ITERATION);
    }
    lines.add(summary);
  }

  private static void qualityLines(List<String> lines, BenchmarkProfile p, JsonObject m, RandomGenerator random) {
    int total = m.getInteger(MetricKeys.TOTAL);
    int correct = m.getInteger(MetricKeys.CORRECT);
    lines.add("Dataset " + p.name() + ": " + total + " questions from ~/.svc/datasets/" + p.name() + "/");
    for (int step = 1; step <= PROGRESS_LINES; step++) {
      int done = (int) Math.ceil((double) total * step / PROGRESS_LINES);
      int right = step == PROGRESS_LINES ? correct
          : (int) Math.min(done, Math.round(done * m.getDouble(MetricKeys.ACCURACY) * random.nextDouble(0.97, 1.03)));
      lines.add(String.format(Locale.ROOT, "[%s] %d/%d answered, running accuracy %.4f", p.name(), done, total,
          (double) right / done));
    }
    lines.add(String.format(Locale.ROOT, "Scoring: %d of %d answers correct", correct, total));
    lines.add(String.format(Locale.ROOT, "Summary: %s passed: accuracy %.4f (%d/%d)", p.name(),
        m.getDouble(MetricKeys.ACCURACY), correct, total));
  }

  /** The container command (README, "Engines"), with the engine's own flags. */
  static String dockerRun(EngineSpec engine, String image, String modelPath, String container, SimulatedHost host) {
    StringBuilder cmd = new StringBuilder("docker run -d --name ").append(container).append(" --network host");
    if (host.hasGpu()) {
      cmd.append(" --gpus all");
    }
    for (String flag : engine.containerFlags()) {
      if (!flag.startsWith("--gpus")) {
        cmd.append(' ').append(flag);
      }
    }
    cmd.append(" -v ").append(modelPath).append(":/models ").append(image);
    int port = engine.defaultPort();
    switch (engine.name()) {
      case "vllm":
        cmd.append(" --model /models --port ").append(port);
        break;
      case "tgi":
        cmd.append(" --model-id /models --port ").append(port);
        break;
      case "llama_cpp":
        cmd.append(" -m /models --host 0.0.0.0 --port ").append(port);
        break;
      case "ollama":
        break;
      default:
        cmd.append(" --port ").append(port);
    }
    return cmd.toString();
  }

  private static String hex(RandomGenerator random, int bytes) {
    byte[] b = new byte[bytes];
    random.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
