package dev.svc.bench.suite;

import dev.svc.bench.load.LoadModel;
import dev.svc.core.domain.Benchmarks;

/**
 * One benchmark of a suite and its settings: measured requests ({@code iterations}), tokens per
 * answer, the load model, warmup requests (excluded from every statistic; each asks for
 * {@link #WARMUP_MAX_TOKENS} tokens), for quality benchmarks how many questions ({@code limit},
 * 0 for all), and for performance benchmarks the shared prefix every prompt opens with
 * ({@code prefixTokens}, 0 for none: every prompt new).
 */
public record BenchmarkSettings(String name, int iterations, int maxTokens, LoadModel load, int warmupRequests, int limit,
    int prefixTokens) {

  public static final int DEFAULT_ITERATIONS = 20;
  public static final int DEFAULT_MAX_TOKENS = 128;
  public static final int DEFAULT_WARMUP_REQUESTS = 5;
  public static final int WARMUP_MAX_TOKENS = 10;
  /** The longest shared prefix: enough for any context window, short enough to keep in memory. */
  public static final int MAX_PREFIX_TOKENS = 1_000_000;

  public BenchmarkSettings {
    if (iterations < 1 || maxTokens < 1 || warmupRequests < 0 || limit < 0) {
      throw new IllegalArgumentException("Benchmark " + name + " needs iterations and max_tokens of at least 1,"
          + " and warmup_requests and limit of at least 0");
    }
    if (prefixTokens < 0 || prefixTokens > MAX_PREFIX_TOKENS) {
      throw new IllegalArgumentException("prefix_tokens of " + name + " must be from 0 to " + MAX_PREFIX_TOKENS);
    }
    if (prefixTokens > 0 && Benchmarks.QUALITY.contains(name)) {
      throw new IllegalArgumentException("prefix_tokens shapes the prompts of performance benchmarks; " + name
          + " asks its dataset's questions as they are");
    }
  }

  /** Settings whose prompts share no prefix. */
  public BenchmarkSettings(String name, int iterations, int maxTokens, LoadModel load, int warmupRequests, int limit) {
    this(name, iterations, maxTokens, load, warmupRequests, limit, 0);
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
    return new BenchmarkSettings(name, iterations, maxTokens, replacing, warmupRequests, limit, prefixTokens);
  }

  /** These settings with every prompt opened by a shared prefix of {@code tokens} (0: none). */
  public BenchmarkSettings withPrefixTokens(int tokens) {
    return new BenchmarkSettings(name, iterations, maxTokens, load, warmupRequests, limit, tokens);
  }
}
