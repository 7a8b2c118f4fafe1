package dev.svc.bench.suite;

import java.util.List;
import java.util.Optional;

/** A named list of benchmarks with their settings, in the order they run. */
public record Suite(String name, String description, List<BenchmarkSettings> benchmarks) {

  public Suite {
    benchmarks = List.copyOf(benchmarks);
  }

  public Optional<BenchmarkSettings> benchmark(String name) {
    return benchmarks.stream().filter(b -> b.name().equals(name)).findFirst();
  }
}
