package dev.svc.bench.suite;

import dev.svc.bench.load.LoadModel;
import dev.svc.core.domain.Benchmarks;

/**
 * One benchmark of a suite and its settings: measured requests ({@code iterations}), tokens per
 * answer, the load model, warmup requests (excluded from every statistic; each asks for
 * {@link #WARMUP_MAX_TOKENS} tokens), for quality benchmarks how many questions ({@code limit},
 * 0 for all), and for performance benchmarks the shared prefix every prompt opens with
 * ({@code prefixTokens}, 0 for none: every prompt new), and how many times to run it ({@code repeat}):
 * only throughput, latency and memory under a load other than a sweep run more than once (see
 * {@link #repeatable}).
 */
public record BenchmarkSettings(String name, int iterations, int maxTokens, LoadModel load, int warmupRequests, int limit,
    int prefixTokens, int repeat) {

  public static final int DEFAULT_ITERATIONS = 20;
  public static final int DEFAULT_MAX_TOKENS = 128;
  public static final int DEFAULT_WARMUP_REQUESTS = 5;
  public static final int WARMUP_MAX_TOKENS = 10;
  /** The longest shared prefix: enough for any context window, short enough to keep in memory. */
  public static final int MAX_PREFIX_TOKENS = 1_000_000;
  /** The most repeats of one benchmark: enough for a tight interval, few enough to finish. */
  public static final int MAX_REPEAT = 100;

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
    if (repeat < 1 || repeat > MAX_REPEAT) {
      throw new IllegalArgumentException("repeat of " + name + " must be from 1 to " + MAX_REPEAT);
    }
    if (repeat > 1 && !repeatable(name)) {
      throw new IllegalArgumentException(name + " runs once: " + onceReason(name));
    }
  }

  /** Settings whose prompts share no prefix, run once. */
  public BenchmarkSettings(String name, int iterations, int maxTokens, LoadModel load, int warmupRequests, int limit) {
    this(name, iterations, maxTokens, load, warmupRequests, limit, 0, 1);
  }

  /**
   * Whether a benchmark of this name can run more than once to give its figures' intervals: the
   * warmup benchmark measures a cold engine, which only its first run meets, and a quality
   * benchmark asks the same questions of a deterministic model, so a repeat adds no information.
   */
  public static boolean repeatable(String name) {
    return !name.equals("warmup") && !Benchmarks.QUALITY.contains(name);
  }

  private static String onceReason(String name) {
    return name.equals("warmup") ? "it measures a cold engine, which only its first run meets"
        : "it asks the same questions of the model each time";
  }

  /**
   * How many times this benchmark runs: its {@code repeat}, except that a sweep runs once (its
   * steps' rates come from its own first steps, so repeats would not measure the same loads).
   */
  public int runs() {
    return load.mode() == LoadModel.Mode.SWEEP ? 1 : repeat;
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
    return new BenchmarkSettings(name, iterations, maxTokens, replacing, warmupRequests, limit, prefixTokens, repeat);
  }

  /** These settings with every prompt opened by a shared prefix of {@code tokens} (0: none). */
  public BenchmarkSettings withPrefixTokens(int tokens) {
    return new BenchmarkSettings(name, iterations, maxTokens, load, warmupRequests, limit, tokens, repeat);
  }

  /** These settings run {@code times} times where this benchmark can repeat (once where it cannot). */
  public BenchmarkSettings withRepeat(int times) {
    return new BenchmarkSettings(name, iterations, maxTokens, load, warmupRequests, limit, prefixTokens,
        repeatable(name) ? times : 1);
  }
}
