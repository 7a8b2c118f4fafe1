package dev.svc.server.simulator;

import dev.svc.core.Timestamps;
import dev.svc.engines.EngineSpec;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * What one simulated run will print and report, decided up front so the log quotes the same figures
 * as the result (test agents here, and the virtual agents of {@code svc fleet simulate}).
 *
 * @param lines the log lines, in order
 * @param document the run's metrics.json
 */
public record SimulationPlan(List<String> lines, JsonObject document) {

  /**
   * @param test the quick test
   * @param host the agent's hardware
   * @param engine the engine the test names
   * @param seed recorded as the load's seed; the random generator is expected to be seeded with it
   * @param started when the run starts
   */
  public static SimulationPlan create(SimulatedTest test, SimulatedHost host, EngineSpec engine, int seed,
      RandomGenerator random, Instant started) {
    BenchmarkProfile profile = BenchmarkProfile.of(test.benchmarkName());
    double billions = ModelSize.billions(test.modelPath());
    String image = engine.image(host.arch())
        .orElseGet(() -> engine.images().values().stream().findFirst().orElse(engine.name()));
    BenchmarkOutcome outcome = profile.quality()
        ? QualityMetrics.generate(profile, host, billions, random)
        : PerformanceMetrics.generate(profile, host, engine.name(), billions, random);
    double startupSeconds = random.nextDouble(12, 25) + billions * random.nextDouble(0.8, 1.6);
    double warmupSeconds = profile.warmupRequests() * random.nextDouble(0.1, 0.4);
    double totalSeconds = random.nextDouble(1, 3) + startupSeconds + warmupSeconds + outcome.durationSeconds()
        + random.nextDouble(2, 5);
    JsonObject document = MetricsDocument.build(test, profile, host, image, outcome, seed,
        Timestamps.format(started), totalSeconds);
    List<String> lines = RunLog.lines(test, profile, host, engine, image, outcome, started.getEpochSecond(),
        startupSeconds, random);
    return new SimulationPlan(lines, document);
  }
}
