package dev.svc.bench.run;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.hardware.MemoryTracker;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadProgress;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.measure.EngineCpu;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.bench.quality.QualityScore;
import dev.svc.bench.suite.BenchmarkSettings;
import dev.svc.bench.suite.Suite;
import dev.svc.core.SvcVersion;
import dev.svc.core.Timestamps;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.EngineVersion;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.security.cert.CertificateException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Runs a suite's benchmarks, one after another, against a healthy engine and assembles
 * metrics.json. Blocking: {@code svc run} calls it from its main thread (inside the engine
 * lifecycle's session, so the container is removed whatever happens). Before the first benchmark
 * the client's request path is compiled against an in-process emulator: a fresh JVM interprets
 * its first few hundred requests, which would add a millisecond or more to the first measurements.
 */
public final class SuiteRun {

  private static final int JIT_REQUESTS = 1500;

  private final Vertx vertx;
  private final MemoryTracker memory;
  private final PrintStream progress;
  /** Kept apart from the outcome so that a run that fails after asking still records it. */
  private volatile EngineVersion engineVersion;

  public SuiteRun(Vertx vertx, MemoryTracker memory, PrintStream progress) {
    this.vertx = vertx;
    this.memory = memory;
    this.progress = progress;
  }

  /** The benchmarks' entries and their requests. */
  public record Outcome(List<BenchmarkOutcome> benchmarks, Map<String, List<RequestRecord>> requests) {
  }

  /** The version the engine gave before the first benchmark; null until it was asked. */
  public EngineVersion engineVersion() {
    return engineVersion;
  }

  /** The benchmarks of {@code suite} to run: all of them, or the one {@code only} names. */
  public static List<BenchmarkSettings> select(Suite suite, String only, LoadModel load) {
    return select(suite, only, load, null);
  }

  /**
   * The same; {@code load} and {@code prefixTokens} (each when not null) replace the settings of
   * every performance benchmark.
   */
  public static List<BenchmarkSettings> select(Suite suite, String only, LoadModel load, Integer prefixTokens) {
    return select(suite, only, load, prefixTokens, null);
  }

  /**
   * The same; {@code repeat} (when not null) replaces how often every benchmark that can repeat
   * runs. A sweep cannot: asking to repeat one is refused.
   */
  public static List<BenchmarkSettings> select(Suite suite, String only, LoadModel load, Integer prefixTokens,
      Integer repeat) {
    List<BenchmarkSettings> out = new ArrayList<>();
    for (BenchmarkSettings b : suite.benchmarks()) {
      if (only == null || b.name().equals(only)) {
        BenchmarkSettings chosen = load != null && !b.quality() ? b.withLoad(load) : b;
        chosen = prefixTokens != null && !b.quality() ? chosen.withPrefixTokens(prefixTokens) : chosen;
        if (repeat != null) {
          chosen = chosen.withRepeat(repeat);
          if (repeat > 1 && chosen.load().mode() == LoadModel.Mode.SWEEP) {
            throw new IllegalArgumentException("--repeat cannot repeat the sweep of " + b.name() + ": each sweep"
                + " chooses its open-loop rates from its own first steps, so its runs would not measure the same"
                + " loads; run the sweep once, or repeat a fixed load (--load concurrency:N or rate:R)");
          }
        }
        out.add(chosen);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("Suite " + suite.name() + " has no benchmark " + only + "; it has "
          + String.join(", ", suite.benchmarks().stream().map(BenchmarkSettings::name).toList()));
    }
    return out;
  }

  /**
   * Runs the benchmarks against {@code engine}, whose CPU is read from {@code engineCpu} beside the
   * client's.
   *
   * @throws IllegalStateException when no connection to the engine can be opened (refused, or its
   *     TLS certificate not trusted), with a sentence that names it; nothing was measured then
   */
  public Outcome run(EngineTarget engine, EngineCpu engineCpu, List<BenchmarkSettings> benchmarks, RunRequest request)
      throws Exception {
    StreamingClient client = StreamingClient.connectionPerRequest(vertx, engine.host(), engine.port(), engine.tls(),
        engine.trustedCa(), 300_000);
    BenchmarkExecutor executor = new BenchmarkExecutor(vertx, client,
        (prompt, maxTokens) -> engine.streamed(GenerationRequest.completion(engine.modelName(), prompt, maxTokens)),
        memory, request.datasetDir(), request.slo(), request.seed(), engineCpu);
    List<BenchmarkOutcome> outcomes = new ArrayList<>();
    Map<String, List<RequestRecord>> requests = new LinkedHashMap<>();
    try {
      reach(client, engine);
      engineVersion = await(EngineVersionProbe.ask(vertx, engine, request.engine()));
      progress.println(engineVersion.version() != null ? "Engine version " + engineVersion.version()
          : "Engine version unknown: " + engineVersion.reason());
      compileRequestPath(vertx);
      for (int i = 0; i < benchmarks.size(); i++) {
        BenchmarkSettings b = benchmarks.get(i);
        progress.printf(Locale.ROOT, "[%d/%d] %s (%s, %s)%n", i + 1, benchmarks.size(), b.name(),
            b.quality() ? "up to " + (b.limit() == 0 ? "all" : b.limit()) + " questions"
                : b.iterations() + " requests of " + b.maxTokens() + " tokens", b.load());
        List<BenchmarkOutcome> runs = new ArrayList<>();
        for (int run = 1; run <= b.runs(); run++) {
          if (b.runs() > 1) {
            progress.printf(Locale.ROOT, "      run %d of %d%n", run, b.runs());
          }
          LoadProgress counts = new LoadProgress();
          Ticker ticker = Ticker.start(vertx, progress, b.name(), counts);
          try {
            runs.add(await(executor.run(b, run, counts)));
          } finally {
            ticker.stop();
          }
        }
        BenchmarkOutcome outcome = RepeatedBenchmark.combine(runs);
        outcomes.add(outcome);
        requests.put(b.name(), outcome.records());
        progress.println("      " + (outcome.passed() ? "passed" : "FAILED: "
            + outcome.result().getJsonArray(MetricKeys.ERRORS).encode()) + headline(outcome.result()));
        sweepLines(outcome.result()).forEach(line -> progress.println("        " + line));
      }
    } finally {
      await(client.close());
    }
    return new Outcome(outcomes, requests);
  }

  /**
   * One connection before anything else, so that an engine that cannot be reached fails the run in
   * one sentence rather than in every request's error.
   */
  private static void reach(StreamingClient client, EngineTarget engine) throws Exception {
    try {
      await(client.reach());
    } catch (ExecutionException e) {
      throw new IllegalStateException(unreachable(engine, e.getCause()));
    }
  }

  /** Why no connection to the engine could be opened, and what to do about a certificate svc run does not trust. */
  private static String unreachable(EngineTarget engine, Throwable cause) {
    Throwable certificate = find(cause, CertificateException.class);
    Throwable tls = find(cause, SSLException.class);
    if (certificate != null) {
      return "The TLS certificate of the engine at " + engine.url() + " was not accepted ("
          + message(root(certificate)) + "). "
          + (engine.trustedCa() == null
              ? "If a private CA signed it, pass that CA's certificate (PEM) with --ca FILE."
              : "It must be signed by the CA given with --ca and name the host " + engine.host() + ".");
    }
    if (tls != null) {
      return "The TLS handshake with the engine at " + engine.url() + " failed (" + message(root(tls))
          + "); does it serve https on port " + engine.port() + "?";
    }
    return "Cannot reach the engine at " + engine.url() + ": " + message(cause);
  }

  private static Throwable find(Throwable cause, Class<? extends Throwable> type) {
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return t;
      }
    }
    return null;
  }

  /** The first cause: the JDK's own reason (no certification path, no name matching the host), not Vert.x's wrapper. */
  private static Throwable root(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  private static String message(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }

  /** A sweep's steps, one line each: load, request rate, output rate, TTFT p50 (none when not a sweep). */
  private static List<String> sweepLines(JsonObject result) {
    JsonObject m = result.getJsonObject(MetricKeys.METRICS, new JsonObject());
    List<String> lines = new ArrayList<>();
    for (Object o : m.getJsonArray(MetricKeys.SWEEP, new JsonArray())) {
      JsonObject step = (JsonObject) o;
      JsonObject ttft = step.getJsonObject(MetricKeys.TTFT_MS);
      lines.add(String.format(Locale.ROOT, "%-18s %10.3f requests/s %10.1f tokens/s  TTFT p50 %s ms%s",
          step.getString(MetricKeys.LOAD), step.getDouble(MetricKeys.REQUEST_THROUGHPUT),
          step.getDouble(MetricKeys.OUTPUT_TOKEN_THROUGHPUT), ttft == null ? "n/a" : ttft.getValue(MetricKeys.P50),
          step.getBoolean(MetricKeys.VALID, true) ? "" : "  (invalid)"));
    }
    if (m.containsKey(MetricKeys.SWEEP_NOTE)) {
      lines.add(m.getString(MetricKeys.SWEEP_NOTE));
    }
    return lines;
  }

  /** Whether the run passed (metrics.json's {@code passed}): it ran benchmarks, without failing, and every one passed. */
  public static boolean passed(List<BenchmarkOutcome> outcomes, String failure) {
    return failure == null && !outcomes.isEmpty() && outcomes.stream().allMatch(BenchmarkOutcome::passed);
  }

  /** metrics.json: the top-level keys of docs/metrics.md, "The files of a run" around the benchmarks' entries. */
  public static JsonObject metrics(RunRequest request, EngineTarget engine, RunProvenance provenance,
      List<BenchmarkOutcome> outcomes, JsonObject systemInfo, String suite, String startedAt, double seconds,
      String failure) {
    JsonArray results = new JsonArray();
    outcomes.forEach(o -> results.add(o.result()));
    long passed = outcomes.stream().filter(BenchmarkOutcome::passed).count();
    boolean valid = outcomes.stream().allMatch(BenchmarkOutcome::valid);
    JsonObject out = new JsonObject().put(MetricKeys.SVC_VERSION, SvcVersion.version()).put(MetricKeys.SUITE_NAME, suite)
        .put(MetricKeys.TIMESTAMP, startedAt).put(MetricKeys.ENGINE, request.engine())
        .put(MetricKeys.ENGINE_IMAGE, engine == null ? null : engine.image()).put(MetricKeys.MODEL, request.model().toString());
    provenance.putInto(out);
    out.put(MetricKeys.PASSED, passed(outcomes, failure))
        .put(MetricKeys.TOTAL_BENCHMARKS, outcomes.size()).put(MetricKeys.PASSED_COUNT, passed)
        .put(MetricKeys.FAILED_COUNT, outcomes.size() - passed)
        .put(MetricKeys.TOTAL_TIME_SECONDS, Math.round(seconds * 100) / 100.0).put(MetricKeys.VALID, valid)
        .put(MetricKeys.SEED, request.seed()).put(MetricKeys.SEED_GIVEN, request.seedGiven())
        .put(MetricKeys.RESULTS, results).put(MetricKeys.SYSTEM_INFO, systemInfo);
    if (failure != null) {
      out.put("error", failure);
    }
    return out;
  }

  /**
   * Runs {@value #JIT_REQUESTS} requests (with delays, so the timer paths are compiled too) against
   * an in-process emulator, so that the JIT has compiled the client's request path before anything
   * is measured, and the emulator's own path too ({@code svc engines emulate} calls it before it
   * says it is ready).
   */
  public static void compileRequestPath(Vertx vertx) throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(1, 1, 8)));
    StreamingClient client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", emulator.port(), 30_000);
    try {
      await(new LoadRunner(vertx, client).run(LoadModel.concurrency(8), JIT_REQUESTS, 0, 1,
          i -> RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
              GenerationRequest.completion(EngineEmulator.MODEL_ID, "warm", 8))));
    } finally {
      await(client.close());
      await(emulator.close());
    }
  }

  private static String headline(JsonObject result) {
    JsonObject m = result.getJsonObject(MetricKeys.METRICS, new JsonObject());
    String headline = RunOutput.headline(result);
    if (headline.isEmpty() || QualityScore.in(m).isPresent()) {
      return headline.isEmpty() ? "" : " — " + headline;
    }
    JsonObject ttft = m.getJsonObject(MetricKeys.TTFT_MS);
    String line = " — " + headline + ", TTFT p50 " + (ttft == null ? "n/a"
        : RunOutput.withInterval(result, MetricKeys.TTFT_MS + "." + MetricKeys.P50, ttft.getValue(MetricKeys.P50)))
        + " ms, cache hits " + RunOutput.cacheHits(m);
    return result.getBoolean(MetricKeys.VALID, true) ? line
        : line + "\n      INVALID: " + result.getString(MetricKeys.INVALID_REASON);
  }

  static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(6, TimeUnit.HOURS);
  }

  public static String startedAt() {
    return Timestamps.now();
  }
}
