package dev.svc.bench.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.load.LoadModel;
import dev.svc.bench.measure.PromptCache;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.bench.measure.RequestRecord.TokenSource;
import dev.svc.bench.suite.BenchmarkSettings;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cache-hit fraction of a benchmark from its requests' cached prompt tokens, the rule that
 * marks a benchmark of new prompts served from the engine's cache, and how summary.md shows both.
 */
class PromptCacheHitsTest {

  private static final BenchmarkSettings NEW_PROMPTS = new BenchmarkSettings("throughput", 4, 8, LoadModel.SEQUENTIAL, 0, 0);

  private static RequestRecord request(int promptTokens, int cachedPromptTokens, String error) {
    return new RequestRecord(RequestRecord.UNSCHEDULED, 0, new long[] {1, 2}, 3, 2, promptTokens, TokenSource.USAGE, "x",
        error, null, cachedPromptTokens);
  }

  @Test
  void theFractionCountsOnlyCompletedRequestsThatReportedTheirCachedTokens() {
    PromptCache cache = PromptCache.of(List.of(request(50, 1, null), request(50, 49, null),
        request(900, RequestRecord.UNKNOWN, null), request(900, 800, "HTTP 500: overloaded")));

    assertThat(cache).isEqualTo(new PromptCache(50, 100, 2));
    assertThat(cache.hitFraction()).isEqualTo(0.5);
    JsonObject metrics = cache.into(new JsonObject());
    assertThat(metrics.getLong(MetricKeys.CACHED_PROMPT_TOKENS)).isEqualTo(50);
    assertThat(metrics.getDouble(MetricKeys.CACHE_HIT_FRACTION)).isEqualTo(0.5);
  }

  @Test
  void anEngineThatReportsNothingHasAnUnknownFractionNotZero() {
    JsonObject metrics = PromptCache.of(List.of(request(50, RequestRecord.UNKNOWN, null))).into(new JsonObject());

    assertThat(metrics.containsKey(MetricKeys.CACHE_HIT_FRACTION)).isTrue();
    assertThat(metrics.getValue(MetricKeys.CACHE_HIT_FRACTION)).isNull();
    assertThat(metrics.getValue(MetricKeys.CACHED_PROMPT_TOKENS)).isNull();
    assertThat(BenchmarkExecutor.unexpectedCacheHits(NEW_PROMPTS, PromptCache.of(List.of()))).isNull();
    // a first request on an empty cache reports 0, which is known
    assertThat(PromptCache.of(List.of(request(50, 0, null))).hitFraction()).isEqualTo(0.0);
  }

  @Test
  void newPromptsServedFromTheCacheAboveTheLimitAreMarkedButAPrefixMakesHitsExpected() {
    // 3 of 12 tokens, 4 times over: the BOS token, a leading space and a tag's first token, as new prompts may share
    PromptCache atLimit = new PromptCache(12, 48, 4);
    PromptCache repeated = new PromptCache(1093, 1118, 25);

    assertThat(BenchmarkExecutor.unexpectedCacheHits(NEW_PROMPTS, atLimit)).isNull();
    assertThat(BenchmarkExecutor.unexpectedCacheHits(NEW_PROMPTS, new PromptCache(13, 48, 4)))
        .startsWith("the engine served 27.1 % of the prompt tokens from its prompt cache (above 25 %)");
    assertThat(BenchmarkExecutor.unexpectedCacheHits(NEW_PROMPTS, repeated))
        .contains("97.8 %", "meant to be new", "the same --seed");
    assertThat(BenchmarkExecutor.unexpectedCacheHits(NEW_PROMPTS.withPrefixTokens(64), repeated)).isNull();
  }

  @Test
  void theSummaryShowsEachBenchmarksCacheHitsTheSeedAndWhyABenchmarkIsInvalid() {
    JsonObject marked = new JsonObject().put(MetricKeys.TEST_NAME, "throughput").put(MetricKeys.PASSED, true)
        .put(MetricKeys.VALID, false).put(MetricKeys.INVALID_REASON, "the engine served 97.8 % of the prompt tokens")
        .put(MetricKeys.METRICS, new JsonObject().put(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, 120.0)
            .put(MetricKeys.CACHE_HIT_FRACTION, 0.9776));
    JsonObject unknown = new JsonObject().put(MetricKeys.TEST_NAME, "latency").put(MetricKeys.PASSED, true)
        .put(MetricKeys.METRICS, new JsonObject().put(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, 80.0)
            .putNull(MetricKeys.CACHE_HIT_FRACTION));
    JsonObject quality = new JsonObject().put(MetricKeys.TEST_NAME, "gsm8k").put(MetricKeys.PASSED, true)
        .put(MetricKeys.METRICS, new JsonObject().put("accuracy", 0.5).put("correct", 1).put("total", 2));
    JsonObject metrics = new JsonObject().put(MetricKeys.MODEL, "tiny.gguf").put(MetricKeys.ENGINE, "llama_cpp")
        .put(MetricKeys.SUITE_NAME, "quick").put(MetricKeys.PASSED, true).put(MetricKeys.SEED, 81237L)
        .put(MetricKeys.SEED_GIVEN, false).put(MetricKeys.RESULTS, new JsonArray().add(marked).add(unknown).add(quality));

    String summary = RunOutput.summary(metrics);

    assertThat(summary).contains("Seed 81237 (drawn for this run; --seed 81237 sends the same prompts again).")
        .contains("| cache hits |")
        .contains("| throughput | yes | **no** |  |  | 120.0 tokens/s |  |  |  |  | 97.8 % |")
        .contains("| latency | yes | yes |  |  | 80.0 tokens/s |  |  |  |  | unknown |")
        .contains("| gsm8k | yes | yes |  |  | accuracy 0.500 (1/2) |  |  |  |  |  |")
        .contains("- throughput is **invalid**: the engine served 97.8 % of the prompt tokens");
    assertThat(RunOutput.summary(metrics.put(MetricKeys.SEED_GIVEN, true))).contains("Seed 81237 (given).");
  }
}
