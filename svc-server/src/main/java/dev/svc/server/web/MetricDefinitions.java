package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What every metric of a metrics.json means, in the words and formulas of docs/metrics.md: the one
 * source the result pages, the compare table and the CSV export read labels, units, formulas and
 * the "better" direction from.
 */
final class MetricDefinitions {

  /** Which way a metric improves; NONE where "better" is not well-defined (counts, settings). */
  enum Better { HIGHER, LOWER, NONE }

  /**
   * @param key the metric's key in metrics.json (or a statistic's key)
   * @param label a short human name
   * @param unit the unit of its values, empty when it has none
   * @param formula the definition as docs/metrics.md gives it
   * @param note a qualification of the formula, empty when there is none
   */
  record Definition(String key, String label, String unit, String formula, String note, Better better) {
  }

  /** The pseudo-key under which the older layout's {@code p50_latency_ms} … show as one distribution. */
  static final String LEGACY_LATENCY = "latency_ms";

  private static final Pattern LEGACY_LATENCY_KEY = Pattern.compile("(p\\d{1,3}|avg|mean|min|max)_latency_ms");
  private static final Pattern PERCENTILE = Pattern.compile("p(\\d{1,3})");

  private static final Map<String, Definition> METRICS = new LinkedHashMap<>();
  private static final Map<String, Definition> TERMS = new LinkedHashMap<>();
  /** The term behind a repeated benchmark's "±" (docs/metrics.md, "Repeats and confidence intervals"). */
  static final String CONFIDENCE = "confidence";

  static {
    metric(MetricKeys.TTFT_MS, "TTFT (time to first token)", "ms", "t_first − t_send",
        "t_first is the first chunk with non-empty generated text", Better.LOWER);
    metric(MetricKeys.TPOT_MS, "TPOT (time per output token)", "ms", "(E2E − TTFT) / (N_out − 1)",
        "only for N_out ≥ 2; other requests are counted and excluded", Better.LOWER);
    metric(MetricKeys.E2E_MS, "E2E latency", "ms", "t_end − t_send",
        "t_end is when the stream finished ([DONE] or connection end)", Better.LOWER);
    metric(MetricKeys.ICG_MS, "Inter-chunk gap (ICG)", "ms", "every t_i − t_{i−1} between content chunks",
        "pooled distribution over all requests; not to be called ITL", Better.LOWER);
    metric(MetricKeys.NTPOT_MS, "NTPOT", "ms", "E2E / N_out", "prefill included (some tools call it per-token latency)",
        Better.LOWER);
    metric(MetricKeys.QUEUEING_DELAY_MS, "Queueing delay", "ms", "t_send − t_sched", "open-loop load models only",
        Better.LOWER);
    metric(MetricKeys.CONNECT_MS, "Connection time", "ms", "t_connected − t_connect_start",
        "opening the request's own connection: TCP connect and TLS handshake; in no other figure (TTFT starts at"
            + " t_send)", Better.LOWER);
    metric(MetricKeys.ICG_MAX_MS, "Worst stall per request", "ms", "the largest inter-chunk gap of each request", "",
        Better.LOWER);
    metric(MetricKeys.LATENCY_FROM_SCHEDULE_MS, "Latency from schedule", "ms", "t_end − t_sched",
        "open-loop load models only: includes the time a request waited to be sent (coordinated omission)",
        Better.LOWER);
    metric(MetricKeys.WINDOW_S, "Window", "s", "last t_end − first t_send of the measured requests",
        "the denominator of every throughput", Better.NONE);
    metric(MetricKeys.TOTAL_PROMPT_TOKENS, "Prompt tokens", "tokens", "Σ N_in", "", Better.NONE);
    metric(MetricKeys.TPOT_EXCLUDED, "Requests without a TPOT", "", "completed requests with N_out < 2",
        "left out of the TPOT statistics", Better.NONE);
    metric(MetricKeys.SLO, "SLOs", "ms", "the objectives a request had to meet to be good", "", Better.NONE);
    metric(MetricKeys.SERVER_TIMINGS, "Engine's own timings", "ms",
        "what the engine reports of each request (llama.cpp: prompt_ms, decode rate)", "", Better.NONE);
    metric(MetricKeys.ACHIEVED_RATE, "Achieved rate", "requests/s", "requests sent / span of their send times",
        "open-loop load models only: how close the client came to the rate asked for", Better.NONE);
    metric(MetricKeys.CLIENT_CPU, "Client CPU", "",
        "the client's CPU over the measured requests: cpu_s, utilisation = cpu_s / (window_s × cores), cores_idle,"
            + " runnable_wait_s, engine_cpu_s (the engine svc started), cores_idle_without_engine",
        "invalid when utilisation ≥ 0.9, or when runnable_wait_s / (runnable_wait_s + cpu_s) ≥ 0.8 while"
            + " cores_idle_without_engine (cores_idle for an --endpoint engine) < 0.05", Better.NONE);
    metric(MetricKeys.DECODE_RATE_TPS, "Decode rate per user", "tokens/s", "1 / TPOT", "", Better.HIGHER);
    metric(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, "Output token throughput", "tokens/s", "Σ N_out / window",
        "N_out from usage.completion_tokens, or counted chunks when token_count_source is chunks", Better.HIGHER);
    metric(MetricKeys.AVG_TPS, "Average tokens per second", "tokens/s", "Σ N_out / window",
        "the older layout's name of the output token throughput, kept readable", Better.HIGHER);
    metric(MetricKeys.REQUEST_THROUGHPUT, "Request throughput", "requests/s", "completed requests / window", "",
        Better.HIGHER);
    metric(MetricKeys.TOTAL_TOKEN_THROUGHPUT, "Total token throughput", "tokens/s", "Σ (N_in + N_out) / window", "",
        Better.HIGHER);
    metric(MetricKeys.GOODPUT, "Goodput", "requests/s", "good requests / window",
        "a request is good when it completed and met every SLO", Better.HIGHER);
    metric(MetricKeys.SLO_ATTAINMENT, "SLO attainment", "", "good requests / all requests sent",
        "failed and timed-out requests count as misses", Better.HIGHER);
    metric(MetricKeys.ERROR_COUNT, "Errors", "", "requests that failed or timed out", "", Better.LOWER);
    metric(MetricKeys.ERROR_RATE, "Error rate", "", "failed requests / requests sent", "", Better.LOWER);
    metric(MetricKeys.TOTAL_ITERATIONS, "Requests measured", "", "requests in the window",
        "warmup requests are excluded from every statistic", Better.NONE);
    metric(MetricKeys.TOTAL_TOKENS_GENERATED, "Tokens generated", "tokens", "Σ N_out", "", Better.NONE);
    metric(MetricKeys.CACHED_PROMPT_TOKENS, "Cached prompt tokens", "tokens",
        "Σ prompt tokens the engine took from its prompt cache",
        "usage.prompt_tokens_details.cached_tokens, or llama.cpp's timings.cache_n; — when the engine does not say",
        Better.NONE);
    metric(MetricKeys.CACHE_HIT_FRACTION, "Cache-hit fraction", "", "cached prompt tokens / prompt tokens",
        "over the requests that reported their cached tokens; above 0.25 without a shared prefix (prefix_tokens) the"
            + " benchmark is invalid: the engine had seen its prompts before", Better.NONE);
    metric(MetricKeys.TOKEN_COUNT_SOURCE, "Token count source", "",
        "usage: usage.completion_tokens / usage.prompt_tokens from the server; chunks: counted stream chunks",
        "the two are never mixed in one run", Better.NONE);
    metric(MetricKeys.STABILIZATION_ITERATION, "Stabilization iteration", "",
        "the first iteration whose latency is at the steady state", "warmup benchmark only", Better.LOWER);
    metric(MetricKeys.PEAK_MEMORY_MB, "Peak GPU memory", "MB", "max(used_mb) over the samples",
        "sampled every 100 ms during the benchmark; null with the reason when there is no GPU", Better.LOWER);
    metric(MetricKeys.AVG_MEMORY_MB, "Average GPU memory", "MB", "mean(used_mb) over the samples",
        "sampled every 100 ms during the benchmark", Better.LOWER);
    metric(MetricKeys.VRAM_UTILIZATION_PCT, "VRAM utilization", "%", "peak_memory_mb / the GPU's memory × 100", "",
        Better.NONE);
    metric(MetricKeys.ACCURACY, "Accuracy", "", "correct / total", "between 0 and 1", Better.HIGHER);
    metric(MetricKeys.CORRECT, "Correct answers", "", "questions answered correctly", "", Better.HIGHER);
    metric(MetricKeys.TOTAL, "Questions", "", "questions asked", "", Better.NONE);
    metric(LEGACY_LATENCY, "Latency (older layout)", "ms", "request latency as the older tool recorded it",
        "keys p50_latency_ms, p99_latency_ms …; read them like E2E latency (t_end − t_send)", Better.LOWER);

    term("mean", "Mean", "Σ values / n", "");
    term("percentile", "pN (p50, p90, p95, p99)",
        "the N-th percentile, interpolating linearly between the closest ranks", "");
    term(MetricKeys.MIN, "Min / max", "the smallest / largest value", "");
    term(MetricKeys.STD, "Std", "population standard deviation: √(Σ (v − mean)² / n)", "");
    term("window", "Window", "[end of warmup, start of cooldown], or [first t_send, last t_end]",
        "the denominator of every throughput");
    term("n_out", "N_out", "generated tokens of a request", "usage.completion_tokens, or counted chunks");
    term(CONFIDENCE, "95 % confidence interval", "mean ± t(0.975, n − 1) × s / √n over the n runs' values of the"
        + " figure, s their sample standard deviation", "shown as mean ± half-width; two results differ beyond the"
        + " noise when Welch's 95 % interval of the difference of their means excludes 0");
  }

  static Definition confidence() {
    return TERMS.get(CONFIDENCE);
  }

  private MetricDefinitions() {
  }

  private static void metric(String key, String label, String unit, String formula, String note, Better better) {
    METRICS.put(key, new Definition(key, label, unit, formula, note, better));
  }

  private static void term(String key, String label, String formula, String note) {
    TERMS.put(key, new Definition(key, label, "", formula, note, Better.NONE));
  }

  /** The definition of a metric key; the older layout's latency keys map to {@link #LEGACY_LATENCY}. */
  static Optional<Definition> of(String key) {
    Definition known = METRICS.get(key);
    if (known != null) {
      return Optional.of(known);
    }
    return legacyLatencyStatistic(key).map(stat -> METRICS.get(LEGACY_LATENCY));
  }

  /** The statistic an older-layout key names: {@code p99_latency_ms} → p99, {@code avg_latency_ms} → mean. */
  static Optional<String> legacyLatencyStatistic(String key) {
    Matcher m = LEGACY_LATENCY_KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    String stat = m.group(1);
    return Optional.of(stat.equals("avg") ? MetricKeys.MEAN : stat);
  }

  /** The term a statistic key is explained under (p95 → percentile, max → min). */
  static Optional<Definition> term(String statistic) {
    if (PERCENTILE.matcher(statistic).matches()) {
      return Optional.of(TERMS.get("percentile"));
    }
    if (statistic.equals(MetricKeys.MAX)) {
      return Optional.of(TERMS.get(MetricKeys.MIN));
    }
    return Optional.ofNullable(TERMS.get(statistic));
  }

  /** Terms every throughput or token count leans on. */
  static Definition window() {
    return TERMS.get("window");
  }

  static Definition nOut() {
    return TERMS.get("n_out");
  }

  static String label(String key) {
    return of(key).map(Definition::label).orElse(key);
  }

  static String unit(String key) {
    return of(key).map(Definition::unit).orElse("");
  }

  static Better better(String key) {
    return of(key).map(Definition::better).orElse(Better.NONE);
  }

  /** The rank of a percentile statistic (p95 → 95), or -1 when it is not one. */
  static int percentileRank(String statistic) {
    Matcher m = PERCENTILE.matcher(statistic);
    return m.matches() ? Integer.parseInt(m.group(1)) : -1;
  }
}
