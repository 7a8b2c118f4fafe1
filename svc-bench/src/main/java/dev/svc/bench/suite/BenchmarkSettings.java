package dev.svc.bench.suite;

import dev.svc.bench.load.LoadModel;
import dev.svc.core.domain.Benchmarks;

/**
 * One benchmark of a suite and its settings: measured requests ({@code iterations}), tokens per
 * answer, the load model, warmup requests (excluded from every statistic; each asks for
 * {@link #WARMUP_MAX_TOKENS} tokens) and, for quality benchmarks, how many questions ({@code limit},
 * 0 for all).
 */
public record BenchmarkSettings(String name, int iterations, int maxTokens, LoadModel load, int warmupRequests, int limit) {

  public static final int DEFAULT_ITERATIONS = 20;
  public static final int DEFAULT_MAX_TOKENS = 128;
  public static final int DEFAULT_WARMUP_REQUESTS = 5;
  public static final int WARMUP_MAX_TOKENS = 10;

  public BenchmarkSettings {
    if (iterations < 1 || maxTokens < 1 || warmupRequests < 0 || limit < 0) {
      throw new IllegalArgumentException("Benchmark " + name + " needs iterations and max_tokens of at least 1,"
          + " and warmup_requests and limit of at least 0");
    }
  }

  public boolean quality() {
    return Benchmarks.QUALITY.contains(name);
  }

  /**
   * These settings under another load model. A plain {@code sweep} keeps this benchmark's
   * {@code concurrency:N} for its max-throughput step.
   */
  public BenchmarkSettings withLoad(LoadModel model) {
    LoadModel replacing = model.mode() == LoadModel.Mode.SWEEP && model.concurrency() == 1
        && load.mode() == LoadModel.Mode.CONCURRENCY ? LoadModel.sweep(load.concurrency()) : model;
    return new BenchmarkSettings(name, iterations, maxTokens, replacing, warmupRequests, limit);
  }
}
