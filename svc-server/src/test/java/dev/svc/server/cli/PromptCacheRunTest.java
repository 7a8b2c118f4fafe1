package dev.svc.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.run.BenchmarkExecutor;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.fixtures.LlamaServerBinary;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.RecordingSink;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import dev.svc.engines.lifecycle.EngineLaunch;
import dev.svc.engines.lifecycle.EngineSession;
import dev.svc.engines.lifecycle.LoopbackPort;
import dev.svc.engines.lifecycle.NativeLifecycle;
import dev.svc.engines.lifecycle.RunningEngine;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code svc run} twice in a row against one real llama.cpp server that stays up between the runs,
 * as a shared engine does. llama-server keeps the prompts it has seen (its prompt cache, in RAM by
 * default) and reports per request how many prompt tokens it took from there ({@code cache_n},
 * {@code prompt_tokens_details.cached_tokens}); svc records them. Each run is short: a suite of
 * 40 requests of 8 tokens on the tiny model, which llama-server answers in milliseconds.
 */
class PromptCacheRunTest {

  /** 40 requests so that two runs' sums of prompt tokens differ by chance by a few per cent at most. */
  private static final String SUITE = """
      benchmarks:
        throughput:
          iterations: 40
          max_tokens: 8
          load: concurrency:2
          warmup_requests: 2
      """;

  @TempDir
  Path temp;

  private Path home;
  private Path model;
  private EngineSpec llamaCpp;

  @BeforeEach
  void engine() throws IOException {
    home = temp.resolve("home");
    Files.createDirectories(home.resolve("suites"));
    Files.writeString(home.resolve("suites/cache.yaml"), SUITE);
    llamaCpp = LlamaServerBinary.catalog(home).find("llama_cpp").orElseThrow();
    model = TinyLlamaGguf.write(Files.createDirectories(temp.resolve("models")).resolve("tiny.gguf"));
  }

  /** One run's outputs: its metrics.json, its throughput entry and its measured requests. */
  private record Run(int exit, JsonObject metrics, JsonObject throughput, List<JsonObject> requests, String summary) {

    JsonObject figures() {
      return throughput.getJsonObject(MetricKeys.METRICS);
    }

    /** Σ prompt tokens the engine computed rather than took from its cache (every request reported them). */
    long processed() {
      return requests.stream().mapToLong(r -> r.getLong("prompt_tokens") - r.getLong(MetricKeys.CACHED_PROMPT_TOKENS)).sum();
    }
  }

  private Run run(RunningEngine engine, String name, String... options) throws IOException {
    Path out = temp.resolve(name);
    List<String> args = new ArrayList<>(List.of("run", "--home", home.toString(), "--endpoint",
        "http://127.0.0.1:" + engine.port(), "--model-name", engine.modelName(), "-m", model.toString(),
        "-e", "llama_cpp", "-s", "cache", "-o", out.toString()));
    args.addAll(List.of(options));
    int exit = new CommandLine(new SvcCommand()).execute(args.toArray(String[]::new));
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    List<JsonObject> requests;
    try (InputStream in = new GZIPInputStream(Files.newInputStream(out.resolve("requests.jsonl.gz")))) {
      requests = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(JsonObject::new).toList();
    }
    assertThat(requests).as(name + ": every measured request").hasSize(40)
        .allSatisfy(r -> assertThat(r.getValue(MetricKeys.CACHED_PROMPT_TOKENS)).as("cached prompt tokens").isNotNull());
    return new Run(exit, metrics, metrics.getJsonArray(MetricKeys.RESULTS).getJsonObject(0), requests,
        Files.readString(out.resolve("summary.md")));
  }

  /** Runs {@code runs} against one llama-server, started before and stopped after. */
  private <T> T withOneLlamaServer(EngineSession<T> runs) {
    EngineLaunch launch = EngineLaunch.builder(llamaCpp, model).port(LoopbackPort.free())
        .extraArgs(LlamaServerImage.CPU_ARGS).build();
    return NativeLifecycle.create().run(launch, new RecordingSink(), runs);
  }

  private static String percent(JsonObject figures) {
    return String.format(Locale.ROOT, "%.1f %%", figures.getDouble(MetricKeys.CACHE_HIT_FRACTION) * 100);
  }

  @Test
  void twoRunsInARowSendNewPromptsSoTheEngineComputesTheSecondsPromptsAgain() {
    List<Run> runs = withOneLlamaServer(engine -> List.of(run(engine, "first"), run(engine, "second")));
    Run first = runs.get(0);
    Run second = runs.get(1);

    for (Run run : runs) {
      assertThat(run.exit()).isZero();
      assertThat(run.metrics().getBoolean(MetricKeys.SEED_GIVEN)).isFalse();
      assertThat(run.throughput().getBoolean(MetricKeys.VALID)).isTrue();
      assertThat(run.metrics().getBoolean(MetricKeys.VALID)).isTrue();
      // the result shows the cached fraction: the BOS token and the odd tag character new prompts share (about 4 %)
      assertThat(run.figures().getDouble(MetricKeys.CACHE_HIT_FRACTION)).isBetween(0.0, BenchmarkExecutor.CACHE_HIT_LIMIT);
      assertThat(run.summary()).contains("| throughput | yes |").contains(" | " + percent(run.figures()) + " |");
    }
    assertThat(second.metrics().getLong(MetricKeys.SEED)).isNotEqualTo(first.metrics().getLong(MetricKeys.SEED));
    assertThat(second.throughput().getJsonObject(MetricKeys.LOAD).getString(MetricKeys.LOAD_PROMPTS_HASH))
        .isNotEqualTo(first.throughput().getJsonObject(MetricKeys.LOAD).getString(MetricKeys.LOAD_PROMPTS_HASH));
    assertThat(second.processed()).as("prompt tokens llama.cpp computed in the second run, against the first's %d",
        first.processed()).isGreaterThanOrEqualTo(Math.round(0.9 * first.processed()));
  }

  @Test
  void aSeedGivenTwiceSendsTheSamePromptsAndTheSecondRunIsMarkedForItsCacheHits() {
    List<Run> runs = withOneLlamaServer(engine -> List.of(run(engine, "first", "--seed", "7"),
        run(engine, "again", "--seed", "7")));
    Run first = runs.get(0);
    Run again = runs.get(1);

    assertThat(again.throughput().getJsonObject(MetricKeys.LOAD).getString(MetricKeys.LOAD_PROMPTS_HASH))
        .isEqualTo(first.throughput().getJsonObject(MetricKeys.LOAD).getString(MetricKeys.LOAD_PROMPTS_HASH));
    assertThat(List.of(first, again)).allSatisfy(run -> {
      assertThat(run.metrics().getLong(MetricKeys.SEED)).isEqualTo(7);
      assertThat(run.metrics().getBoolean(MetricKeys.SEED_GIVEN)).isTrue();
    });
    assertThat(first.throughput().getBoolean(MetricKeys.VALID)).isTrue();
    assertThat(first.figures().getDouble(MetricKeys.CACHE_HIT_FRACTION)).isLessThanOrEqualTo(BenchmarkExecutor.CACHE_HIT_LIMIT);

    // llama.cpp computes only each prompt's last token again (it needs its logits) and serves the rest from its cache
    assertThat(again.figures().getDouble(MetricKeys.CACHE_HIT_FRACTION)).isGreaterThan(0.9);
    assertThat(again.processed()).isLessThan(first.processed() / 10);
    assertThat(again.exit()).as("it passed: the engine answered every request").isZero();
    assertThat(again.throughput().getBoolean(MetricKeys.PASSED)).isTrue();
    assertThat(again.throughput().getBoolean(MetricKeys.VALID)).isFalse();
    assertThat(again.metrics().getBoolean(MetricKeys.VALID)).isFalse();
    String reason = again.throughput().getString(MetricKeys.INVALID_REASON);
    assertThat(reason).startsWith("the engine served " + percent(again.figures()) + " of the prompt tokens from its"
        + " prompt cache (above 25 %) though every prompt was meant to be new");
    assertThat(again.summary()).contains(" | " + percent(again.figures()) + " |", "- throughput is **invalid**: " + reason);
  }

  @Test
  void aSharedPrefixIsServedFromTheCacheAsExpectedAndIsNotMarked() {
    Run run = withOneLlamaServer(engine -> run(engine, "prefix", "--prefix-tokens", "32"));

    assertThat(run.exit()).isZero();
    assertThat(run.throughput().getJsonObject(MetricKeys.LOAD).getInteger(MetricKeys.LOAD_PREFIX_TOKENS)).isEqualTo(32);
    // every prompt opens with the run's 32 words, which the warmup requests left in the cache; only the rest is new
    assertThat(run.requests()).allSatisfy(r -> assertThat(r.getInteger(MetricKeys.CACHED_PROMPT_TOKENS))
        .as("cached prompt tokens of %s", r).isGreaterThan(32));
    assertThat(run.figures().getDouble(MetricKeys.CACHE_HIT_FRACTION)).isGreaterThan(0.5);
    assertThat(run.throughput().getBoolean(MetricKeys.VALID)).isTrue();
    assertThat(run.throughput().containsKey(MetricKeys.INVALID_REASON)).isFalse();
  }
}
