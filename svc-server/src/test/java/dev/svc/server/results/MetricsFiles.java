package dev.svc.server.results;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** metrics.json documents in the current layout, and writing them where a scan will find them. */
public final class MetricsFiles {

  private MetricsFiles() {
  }

  public static JsonObject current(String model, String timestamp) {
    return current(model, timestamp, 103.2);
  }

  public static JsonObject current(String model, String timestamp, double avgTps) {
    return new JsonObject()
        .put("svc_version", "1.7.0")
        .put("suite_name", "quick")
        .put("timestamp", timestamp)
        .put("engine", "vllm")
        .put("model", model)
        .put("passed", true)
        .put("total_benchmarks", 1)
        .put("results", new JsonArray().add(new JsonObject()
            .put("test_name", "throughput")
            .put("passed", true)
            .put("metrics", new JsonObject().put("avg_tps", avgTps))
            .put("errors", new JsonArray())));
  }

  /**
   * A document whose throughput benchmark ran under the sweep load, laid out as svc-bench's Sweep
   * writes it: the benchmark's metrics are those of the second (maximum-throughput) step, beside
   * {@code sweep}, the steps in the order run, and {@code sweep_note} when {@code note} is not null.
   * The benchmark and the document are invalid when a step is.
   */
  public static JsonObject sweep(String model, String timestamp, JsonArray steps, String note) {
    JsonObject max = steps.getJsonObject(Math.min(1, steps.size() - 1));
    JsonObject metrics = new JsonObject().put("avg_tps", max.getValue("output_token_throughput"));
    max.fieldNames().stream().filter(k -> !k.equals("load") && !k.equals("valid") && !k.equals("invalid_reason"))
        .forEach(k -> metrics.put(k, max.getValue(k)));
    metrics.put("token_count_source", "usage").put("gpu_memory", new JsonObject().putNull("peak_memory_mb")
        .putNull("avg_memory_mb").putNull("vram_utilization_pct").put("samples", new JsonArray())
        .put("reason", "no GPU: nvidia-smi not found")).put("sweep", steps);
    if (note != null) {
      metrics.put("sweep_note", note);
    }
    boolean valid = steps.stream().allMatch(step -> ((JsonObject) step).getBoolean("valid"));
    JsonObject entry = new JsonObject().put("test_name", "throughput").put("test_version", "1.0.0").put("run_number", 1)
        .put("passed", true).put("metrics", metrics)
        .put("load", new JsonObject().put("mode", "sweep").put("seed", 42).put("warmup_requests", 5))
        .put("errors", new JsonArray()).put("valid", valid);
    return new JsonObject().put("svc_version", "1.7.0").put("suite_name", "quick").put("timestamp", timestamp)
        .put("engine", "llama_cpp").put("model", model).put("passed", true).put("total_benchmarks", 1)
        .put("passed_count", 1).put("failed_count", 0).put("total_time_seconds", 12.5).put("valid", valid)
        .put("results", new JsonArray().add(entry));
  }

  /** Why {@link #threeSweepSteps()}'s open-loop step is invalid, as svc-bench words it. */
  public static final String LAG_REASON =
      "the client, not the engine, was the bottleneck: schedule lag p99 14.2 ms is above 10 ms";

  /**
   * Three steps as a sweep runs them: the sequential baseline, the maximum (concurrency:16), then an
   * open-loop step (poisson:3.2) that is invalid for {@link #LAG_REASON}.
   */
  public static JsonArray threeSweepSteps() {
    return new JsonArray()
        .add(sweepStep("sequential", 1.92, 245.8, 38.2, 44.75, 7.6, 520.3, 20, 0))
        .add(sweepStep("concurrency:16", 11.4, 1459.2, 95.1, 180.4, 10.2, 1390.5, 20, 1))
        .add(openLoop(sweepStep("poisson:3.2", 3.05, 390.4, 41.3, 60.2, 7.9, 545.0, 20, 0), 3.17, 14.2, LAG_REASON));
  }

  /** A valid step of a closed-loop load (sequential, concurrency:N), its keys in the order Sweep writes them. */
  public static JsonObject sweepStep(String load, double requestThroughput, double tokenThroughput, double ttftP50,
      double ttftP99, double tpotP50, double e2eP50, int requests, int errors) {
    return new JsonObject().put("load", load).put("request_throughput", requestThroughput)
        .put("output_token_throughput", tokenThroughput).put("ttft_ms", distribution(ttftP50, ttftP99))
        .put("tpot_ms", distribution(tpotP50, tpotP50 * 1.5)).put("e2e_ms", distribution(e2eP50, e2eP50 * 1.4))
        .put("total_iterations", requests).put("error_count", errors).put("valid", true);
  }

  /** The step as an open-loop one: its achieved rate and schedule lag; invalid for the reason when it is not null. */
  public static JsonObject openLoop(JsonObject step, double achievedRate, double lagP99, String reason) {
    JsonObject e2e = step.getJsonObject("e2e_ms");
    step.put("achieved_rate", achievedRate).put("queueing_delay_ms", distribution(lagP99 / 4, lagP99))
        .put("latency_from_schedule_ms", distribution(e2e.getDouble("p50") + lagP99 / 4, e2e.getDouble("p99") + lagP99))
        .put("valid", reason == null);
    return reason == null ? step : step.put("invalid_reason", reason);
  }

  /** A distribution summary with every statistic benchmarks.md lists, around its p50 and p99. */
  public static JsonObject distribution(double p50, double p99) {
    return new JsonObject().put("mean", p50 * 1.05).put("p50", p50).put("p90", (p50 + p99) / 2).put("p95", p99 * 0.95)
        .put("p99", p99).put("min", p50 * 0.8).put("max", p99 * 1.1).put("std", (p99 - p50) / 3);
  }

  public static Path write(Path file, JsonObject data) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, data.encode());
    return file;
  }
}
