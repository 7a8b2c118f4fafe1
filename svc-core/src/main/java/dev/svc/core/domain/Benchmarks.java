package dev.svc.core.domain;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Benchmark names the seed fixes, with their aliases. */
public final class Benchmarks {

  public static final List<String> PERFORMANCE = List.of("throughput", "latency", "memory", "warmup");
  public static final List<String> QUALITY = List.of("mmlu", "gsm8k", "truthfulqa", "hellaswag");
  private static final Map<String, String> ALIASES = Map.of("memory_usage", "memory", "warmup_analysis", "warmup");

  private Benchmarks() {
  }

  /** The canonical name of a benchmark or alias; empty when unknown. */
  public static Optional<String> canonical(String name) {
    if (name == null) {
      return Optional.empty();
    }
    if (PERFORMANCE.contains(name) || QUALITY.contains(name)) {
      return Optional.of(name);
    }
    return Optional.ofNullable(ALIASES.get(name));
  }

  public static List<String> all() {
    return java.util.stream.Stream.concat(PERFORMANCE.stream(), QUALITY.stream()).toList();
  }
}
