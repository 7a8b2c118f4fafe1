package dev.svc.server.simulator;

import dev.svc.core.SvcVersion;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Assembles a simulated run's {@code metrics.json} in the layout of docs/metrics.md, "The files of a run": one
 * benchmark in {@code results}, the host's {@code system_info}, and {@code "simulated": true}.
 */
final class MetricsDocument {

  static final String TEST_VERSION = "1.0.0";

  private MetricsDocument() {
  }

  /**
   * @param test the quick-test row (model_path, engine_name, suite_name)
   * @param timestamp when the run started, canonical form
   * @param totalSeconds the whole run: engine start, warmup, benchmark, cleanup
   */
  static JsonObject build(SimulatedTest test, BenchmarkProfile profile, SimulatedHost host, String engineImage,
      BenchmarkOutcome outcome, int seed, String timestamp, double totalSeconds) {
    JsonObject result = new JsonObject()
        .put(MetricKeys.TEST_NAME, profile.name())
        .put(MetricKeys.TEST_VERSION, TEST_VERSION)
        .put(MetricKeys.RUN_NUMBER, 1)
        .put(MetricKeys.PASSED, true)
        .put(MetricKeys.METRICS, outcome.metrics())
        .put(MetricKeys.LOAD, new JsonObject()
            .put(MetricKeys.LOAD_MODE, profile.mode())
            .put(MetricKeys.LOAD_SEED, seed)
            .put(MetricKeys.LOAD_WARMUP_REQUESTS, profile.warmupRequests()))
        .put(MetricKeys.ERRORS, new JsonArray())
        .put(MetricKeys.TIMESTAMP, timestamp);
    return new JsonObject()
        .put(MetricKeys.SVC_VERSION, SvcVersion.version())
        .put(MetricKeys.SUITE_NAME, test.suiteName())
        .put(MetricKeys.TIMESTAMP, timestamp)
        .put(MetricKeys.ENGINE, test.engineName())
        .put(MetricKeys.ENGINE_IMAGE, engineImage)
        .put(MetricKeys.MODEL, test.modelPath())
        .put(MetricKeys.PASSED, true)
        .put(MetricKeys.TOTAL_BENCHMARKS, 1)
        .put(MetricKeys.PASSED_COUNT, 1)
        .put(MetricKeys.FAILED_COUNT, 0)
        .put(MetricKeys.TOTAL_TIME_SECONDS, Math.round(totalSeconds * 100) / 100.0)
        .put(MetricKeys.VALID, true)
        .put(MetricKeys.RESULTS, new JsonArray().add(result))
        .put(MetricKeys.SYSTEM_INFO, host.systemInfo())
        .put(MetricKeys.SIMULATED, true);
  }
}
