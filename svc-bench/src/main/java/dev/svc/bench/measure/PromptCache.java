package dev.svc.bench.measure;

import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * How much of a benchmark's prompts the engine served from its prompt cache, over the completed
 * requests whose engine said so (llama.cpp always does; vLLM with prompt token details). Requests
 * that did not say are left out, not counted as 0: an engine that reports nothing has an unknown
 * cache-hit fraction.
 *
 * @param cachedTokens Σ cached prompt tokens of the requests that reported them
 * @param promptTokens Σ prompt tokens of the same requests
 * @param requests how many requests reported them
 */
public record PromptCache(long cachedTokens, long promptTokens, int requests) {

  public static PromptCache of(List<RequestRecord> records) {
    long cached = 0;
    long prompt = 0;
    int reported = 0;
    for (RequestRecord r : records) {
      if (r.ok() && r.cacheReported()) {
        cached += r.cachedPromptTokens();
        prompt += r.promptTokens();
        reported++;
      }
    }
    return new PromptCache(cached, prompt, reported);
  }

  public boolean known() {
    return requests > 0 && promptTokens > 0;
  }

  /** The cache-hit fraction, cached / prompt tokens (0..1); null when unknown. */
  public Double hitFraction() {
    return known() ? Math.round(Math.min(1.0, cachedTokens / (double) promptTokens) * 10_000) / 10_000.0 : null;
  }

  /** {@code metrics} with {@code cached_prompt_tokens} and {@code cache_hit_fraction}, each null when unknown. */
  public JsonObject into(JsonObject metrics) {
    return metrics.put(MetricKeys.CACHED_PROMPT_TOKENS, known() ? cachedTokens : null)
        .put(MetricKeys.CACHE_HIT_FRACTION, hitFraction());
  }
}
