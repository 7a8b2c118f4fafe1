package dev.svc.server.simulator;

import dev.svc.core.domain.Benchmarks;

/**
 * How a benchmark is run, as a suite would configure it: requests, load model, output length and
 * warmup requests. Quality benchmarks use their dataset's size as the number of questions.
 *
 * @param name the canonical benchmark name
 * @param quality whether it is a quality (accuracy) benchmark
 * @param iterations measured requests (performance) or questions (quality)
 * @param concurrency closed-loop workers; 1 is sequential
 * @param maxTokens output tokens asked for per request
 * @param warmupRequests requests sent first and excluded from every statistic
 */
record BenchmarkProfile(String name, boolean quality, int iterations, int concurrency, int maxTokens,
    int warmupRequests) {

  static BenchmarkProfile of(String benchmark) {
    String name = Benchmarks.canonical(benchmark).orElse("throughput");
    switch (name) {
      case "latency":
        return new BenchmarkProfile(name, false, 20, 1, 128, 5);
      case "memory":
        return new BenchmarkProfile(name, false, 12, 4, 512, 5);
      case "warmup":
        return new BenchmarkProfile(name, false, 15, 1, 64, 0);
      case "mmlu":
        return new BenchmarkProfile(name, true, 14_042, 1, 1, 0);
      case "gsm8k":
        return new BenchmarkProfile(name, true, 1_319, 1, 256, 0);
      case "truthfulqa":
        return new BenchmarkProfile(name, true, 817, 1, 1, 0);
      case "hellaswag":
        return new BenchmarkProfile(name, true, 10_042, 1, 1, 0);
      default:
        return new BenchmarkProfile(name, false, 40, 8, 256, 5);
    }
  }

  /** The load model's wire form: {@code sequential} or {@code concurrency:N}. */
  String mode() {
    return concurrency <= 1 ? "sequential" : "concurrency:" + concurrency;
  }
}
