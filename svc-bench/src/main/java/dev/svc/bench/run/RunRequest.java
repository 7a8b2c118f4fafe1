package dev.svc.bench.run;

import dev.svc.bench.load.LoadModel;
import dev.svc.bench.measure.Slo;
import java.net.URI;
import java.nio.file.Path;

/**
 * What {@code svc run} was asked: the model, the engine, the suite (and optionally one of its
 * benchmarks), where to write, and how to load the engine. {@code load} replaces the suite's load
 * model for every performance benchmark when set; {@code endpoint} benchmarks an engine that is
 * already running there instead of starting one. {@code seed} is the run's seed: the one given
 * ({@code seedGiven}), else one drawn for this run, so that its prompts are new to the engine.
 */
public record RunRequest(Path model, String engine, String suite, String benchmark, Path out, boolean autoPull,
    LoadModel load, Slo slo, long seed, Path datasetDir, URI endpoint, boolean force, boolean seedGiven) {

  /**
   * A seed for a run not given one: random, below 2^53 so that metrics.json readers that hold
   * numbers as doubles (JavaScript) read it exactly and it can be given back with --seed.
   */
  public static long randomSeed() {
    return java.util.concurrent.ThreadLocalRandom.current().nextLong(1L << 53);
  }
}
