package dev.svc.bench.run;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.hardware.MemoryTrace;
import dev.svc.bench.hardware.MemoryTracker;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadProgress;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.measure.EngineCpu;
import dev.svc.bench.measure.PromptCache;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.bench.measure.RunMetrics;
import dev.svc.bench.measure.Slo;
import dev.svc.bench.quality.DatasetMissingException;
import dev.svc.bench.quality.QualityBenchmark;
import dev.svc.bench.quality.QualityScore;
import dev.svc.bench.quality.Question;
import dev.svc.bench.suite.BenchmarkSettings;
import dev.svc.core.Timestamps;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Runs one benchmark of a suite against a healthy engine and builds its metrics.json entry:
 * performance benchmarks offer their load (warmup requests first, excluded) while GPU memory is
 * sampled; the warmup benchmark also finds its stabilisation point; quality benchmarks ask every
 * question of their dataset and score the answers. A benchmark with errors has not passed; an
 * open-loop run (or sweep step) whose client fell behind its schedule, or whose client saturated
 * its CPU ({@link dev.svc.bench.measure.ClientCpu}), is marked invalid with the reason, and so is a performance benchmark whose prompts were all meant to be new but which the
 * engine largely served from its prompt cache.
 */
public final class BenchmarkExecutor {

  public static final String TEST_VERSION = "1.0.0";
  /** Open-loop runs whose schedule lag p99 exceeds this were limited by the client, not the engine. */
  public static final double LAG_LIMIT_MS = 10.0;
  /**
   * A performance benchmark without a shared prefix whose cache-hit fraction exceeds this was served
   * from the engine's prompt cache: it had seen the prompts before. New prompts still share a little
   * with earlier ones: the BOS token, with some tokenizers a leading-space token, and, where the
   * engine keeps many earlier prompts (llama.cpp's RAM cache), the first token of the tag of the
   * closest one, so 2 or 3 tokens of svc's 15-to-60-token prompts: 3.8 % measured on the tiny test
   * model's 55-token prompts, 12 to 15 % to be expected from Llama tokenizers' 17-to-20-token ones
   * (vLLM, which reuses whole blocks of 16 tokens, reports 0). A repeat of the same prompts is
   * served about 98 % from cache. A quarter lies clear of the first and catches any run in which
   * more than about a quarter of the prompts were repeats.
   */
  public static final double CACHE_HIT_LIMIT = 0.25;

  private final Vertx vertx;
  private final StreamingClient client;
  private final RequestFactory requests;
  private final MemoryTracker memory;
  private final Path datasets;
  private final Slo slo;
  private final long seed;
  private final EngineCpu engineCpu;

  public BenchmarkExecutor(Vertx vertx, StreamingClient client, RequestFactory requests, MemoryTracker memory,
      Path datasets, Slo slo, long seed) {
    this(vertx, client, requests, memory, datasets, slo, seed, EngineCpu.unknown(null));
  }

  /** {@code engineCpu}: where to read the CPU of the engine svc started, to tell it from other work. */
  public BenchmarkExecutor(Vertx vertx, StreamingClient client, RequestFactory requests, MemoryTracker memory,
      Path datasets, Slo slo, long seed, EngineCpu engineCpu) {
    this.vertx = vertx;
    this.client = client;
    this.requests = requests;
    this.memory = memory;
    this.datasets = datasets;
    this.slo = slo;
    this.seed = seed;
    this.engineCpu = engineCpu;
  }

  public Future<BenchmarkOutcome> run(BenchmarkSettings settings) {
    return run(settings, new LoadProgress());
  }

  /** Runs {@code settings}, counting its requests in {@code progress}. */
  public Future<BenchmarkOutcome> run(BenchmarkSettings settings, LoadProgress progress) {
    return run(settings, 1, progress);
  }

  /**
   * Runs {@code settings} as its {@code runNumber}th run (from 1): each run of a repeated
   * benchmark sends prompts of its own, so that no run is served from another's prompt cache.
   */
  public Future<BenchmarkOutcome> run(BenchmarkSettings settings, int runNumber, LoadProgress progress) {
    return settings.quality() ? quality(settings, progress) : performance(settings, runNumber, progress);
  }

  private Future<BenchmarkOutcome> performance(BenchmarkSettings settings, int runNumber, LoadProgress progress) {
    // one prompt per request, warmup included, so that none repeats within the run (a sweep's steps included)
    boolean sweep = settings.load().mode() == LoadModel.Mode.SWEEP;
    Prompts prompts = Prompts.forBenchmark(seed, runNumber == 1 ? settings.name() : settings.name() + "#" + runNumber,
        settings.iterations() * (sweep ? Sweep.MAX_STEPS : 1) + settings.warmupRequests(), settings.prefixTokens());
    IntFunction<RequestSpec> build = i -> i < 0 ? requests.request(prompts.get(i), BenchmarkSettings.WARMUP_MAX_TOKENS)
        : requests.request(prompts.get(i), settings.maxTokens());
    LoadRunner runner = new LoadRunner(vertx, client, progress, engineCpu);
    return vertx.executeBlocking(memory::start).compose(tracking -> {
      Future<Measurement> measured = sweep
          ? new Sweep(runner, progress, slo, seed).run(settings, build)
          : runner.run(settings.load(), settings.iterations(), settings.warmupRequests(), seed, build).map(run -> {
            JsonObject metrics = RunMetrics.of(run.measured(), slo).put(MetricKeys.CLIENT_CPU, run.clientCpu().toJson());
            return new Measurement(metrics, run.measured(), joined(invalidReason(settings.load(), metrics),
                run.clientCpu().saturationReason()));
          });
      return measured.compose(m -> vertx.executeBlocking(tracking::stop)
          .map(trace -> performanceResult(settings, runNumber, prompts, m, trace)));
    });
  }

  /**
   * Why a run under {@code load} with these metrics is invalid: an open-loop run whose schedule lag
   * p99 is above {@value #LAG_LIMIT_MS} ms was limited by the client. Null when it is valid.
   */
  static String invalidReason(LoadModel load, JsonObject metrics) {
    JsonObject lag = metrics.getJsonObject(MetricKeys.QUEUEING_DELAY_MS);
    if (!load.openLoop() || lag == null || lag.getDouble(MetricKeys.P99) <= LAG_LIMIT_MS) {
      return null;
    }
    return String.format(Locale.ROOT, "the client, not the engine, was the bottleneck: schedule lag p99 %.1f ms is"
        + " above %.0f ms", lag.getDouble(MetricKeys.P99), LAG_LIMIT_MS);
  }

  /** Every reason given, in order, joined with "; "; null when there is none. */
  static String joined(String... reasons) {
    return Stream.of(reasons).filter(Objects::nonNull).reduce((a, b) -> a + "; " + b).orElse(null);
  }

  /**
   * Why a benchmark with this cache use is invalid: its prompts were all meant to be new (no shared
   * prefix), yet the engine served more than {@link #CACHE_HIT_LIMIT} of their tokens from its prompt
   * cache. Null when it is valid, when a prefix makes hits expected, or when the engine did not say.
   */
  static String unexpectedCacheHits(BenchmarkSettings settings, PromptCache cache) {
    Double fraction = cache.hitFraction();
    if (settings.prefixTokens() > 0 || fraction == null || fraction <= CACHE_HIT_LIMIT) {
      return null;
    }
    return String.format(Locale.ROOT, "the engine served %.1f %% of the prompt tokens from its prompt cache (above"
        + " %.0f %%) though every prompt was meant to be new: it had seen these prompts before (the same --seed"
        + " against the same engine?), so TTFT and throughput are not those of new prompts", fraction * 100,
        CACHE_HIT_LIMIT * 100);
  }

  /**
   * The entry of a performance benchmark. GPU memory and the prompt cache cover the whole load (a
   * sweep's steps together); the warmup benchmark's stabilisation point is that of its first
   * {@code iterations} requests (a sweep's sequential step).
   */
  private BenchmarkOutcome performanceResult(BenchmarkSettings settings, int runNumber, Prompts prompts,
      Measurement measured, MemoryTrace trace) {
    List<RequestRecord> records = measured.records();
    PromptCache cache = PromptCache.of(records);
    JsonObject metrics = cache.into(measured.metrics().put(MetricKeys.GPU_MEMORY, trace.toJson()));
    if (settings.name().equals("warmup")) {
      metrics.put(MetricKeys.STABILIZATION_ITERATION, Stabilization.iteration(records.subList(0, settings.iterations())
          .stream().mapToDouble(RequestRecord::e2eMs).toArray()));
    }
    JsonArray errors = new JsonArray();
    records.stream().filter(r -> !r.ok()).map(RequestRecord::error).distinct().limit(20).forEach(errors::add);
    boolean passed = errors.isEmpty();
    String invalidReason = joined(measured.invalidReason(), unexpectedCacheHits(settings, cache));
    boolean valid = invalidReason == null;
    JsonObject result = entry(settings.name(), runNumber, passed, metrics, errors)
        .put(MetricKeys.LOAD, load(settings).put(MetricKeys.LOAD_PROMPTS_HASH, prompts.hash())
            .put(MetricKeys.LOAD_PREFIX_TOKENS, settings.prefixTokens()))
        .put(MetricKeys.VALID, valid);
    if (invalidReason != null) {
      result.put(MetricKeys.INVALID_REASON, invalidReason);
    }
    return new BenchmarkOutcome(result, passed, valid, records);
  }

  private Future<BenchmarkOutcome> quality(BenchmarkSettings settings, LoadProgress progress) {
    QualityBenchmark benchmark = QualityBenchmark.named(settings.name()).orElseThrow();
    return vertx.executeBlocking(() -> benchmark.load(datasets, settings.limit())).compose(questions ->
        new LoadRunner(vertx, client, progress).run(settings.load(), questions.size(), 0, seed,
            i -> requests.request(questions.get(i).prompt(), settings.maxTokens()))
            .map(run -> qualityResult(settings, benchmark, questions, run.measured())), failure -> {
          String message = failure instanceof DatasetMissingException ? failure.getMessage()
              : "Cannot read the " + settings.name() + " dataset: " + failure.getMessage();
          return Future.succeededFuture(new BenchmarkOutcome(entry(settings.name(), 1, false, new JsonObject(),
              new JsonArray().add(message)).put(MetricKeys.LOAD, load(settings)), false, true, List.of()));
        });
  }

  private BenchmarkOutcome qualityResult(BenchmarkSettings settings, QualityBenchmark benchmark, List<Question> questions,
      List<RequestRecord> answers) {
    JsonArray errors = new JsonArray();
    JsonObject metrics = QualityScore.score(benchmark, questions, answers, errors).toJson();
    boolean passed = errors.isEmpty() && !questions.isEmpty();
    if (questions.isEmpty()) {
      errors.add("The " + settings.name() + " dataset holds no questions");
    }
    return new BenchmarkOutcome(entry(settings.name(), 1, passed, metrics, errors).put(MetricKeys.LOAD, load(settings)),
        passed, true, answers);
  }

  private JsonObject load(BenchmarkSettings settings) {
    return new JsonObject().put(MetricKeys.LOAD_MODE, settings.load().wireName()).put(MetricKeys.LOAD_SEED, seed)
        .put(MetricKeys.LOAD_WARMUP_REQUESTS, settings.quality() ? 0 : settings.warmupRequests());
  }

  private static JsonObject entry(String name, int runNumber, boolean passed, JsonObject metrics, JsonArray errors) {
    return new JsonObject().put(MetricKeys.TEST_NAME, name).put(MetricKeys.TEST_VERSION, TEST_VERSION)
        .put(MetricKeys.RUN_NUMBER, runNumber).put(MetricKeys.PASSED, passed).put(MetricKeys.METRICS, metrics)
        .put(MetricKeys.ERRORS, errors).put(MetricKeys.TIMESTAMP, Timestamps.now());
  }
}
