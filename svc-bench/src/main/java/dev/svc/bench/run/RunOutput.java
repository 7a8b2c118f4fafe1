package dev.svc.bench.run;

import dev.svc.bench.measure.RequestRecord;
import dev.svc.bench.quality.QualityScore;
import dev.svc.core.metrics.Confidence;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a run's output directory: {@code metrics.json}, {@code hardware.json} (the system info),
 * {@code config.json} (what was asked), {@code summary.md} (for people) and
 * {@code requests.jsonl.gz} (one line per measured request, times in ms from the benchmark's first
 * send, with the engine's own timings of it where it gives them; a swept benchmark's lines carry
 * their step's {@code load}, a repeated benchmark's their run's {@code run_number}, times from that
 * run's first send). {@code metrics.json} comes last, written aside and renamed, so that a
 * failed write (a full disk) never leaves one cut short. Blocking.
 */
public final class RunOutput {

  private RunOutput() {
  }

  public static void write(Path dir, JsonObject metrics, JsonObject config, Map<String, List<RequestRecord>> requests)
      throws IOException {
    Files.createDirectories(dir);
    JsonObject hardware = metrics.getJsonObject(MetricKeys.SYSTEM_INFO, new JsonObject());
    Files.writeString(dir.resolve("hardware.json"), hardware.encodePrettily() + "\n", StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("config.json"), config.encodePrettily() + "\n", StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("summary.md"), summary(metrics), StandardCharsets.UTF_8);
    try (OutputStream file = Files.newOutputStream(dir.resolve("requests.jsonl.gz"));
        Writer out = new OutputStreamWriter(new GZIPOutputStream(file), StandardCharsets.UTF_8)) {
      for (Map.Entry<String, List<RequestRecord>> benchmark : requests.entrySet()) {
        List<RequestRecord> records = benchmark.getValue();
        List<String> steps = stepLoads(metrics, benchmark.getKey());
        List<Integer> runs = runSizes(metrics, benchmark.getKey(), records.size());
        int first = 0;
        for (int run = 0; run < runs.size(); run++) {
          List<RequestRecord> ofRun = records.subList(first, first + runs.get(run));
          long origin = ofRun.stream().mapToLong(RequestRecord::send).min().orElse(0);
          for (int i = 0; i < ofRun.size(); i++) {
            JsonObject line = line(benchmark.getKey(), first + i, ofRun.get(i), origin);
            if (first + i < steps.size()) {
              line.put(MetricKeys.LOAD, steps.get(first + i));
            }
            if (runs.size() > 1) {
              line.put(MetricKeys.RUN_NUMBER, run + 1);
            }
            out.write(line.encode());
            out.write('\n');
          }
          first += ofRun.size();
        }
      }
    }
    // last and whole or not at all: the server indexes and the agent submits whatever is named metrics.json
    Path partial = dir.resolve(".metrics.json.partial");
    try {
      Files.writeString(partial, metrics.encodePrettily() + "\n", StandardCharsets.UTF_8);
      Files.move(partial, dir.resolve("metrics.json"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(partial);
    }
  }

  /** The load of each request of a swept benchmark, whose requests are in step order; empty for other benchmarks. */
  private static List<String> stepLoads(JsonObject metrics, String benchmark) {
    List<String> loads = new ArrayList<>();
    for (Object o : metrics.getJsonArray(MetricKeys.RESULTS, new JsonArray())) {
      JsonObject result = (JsonObject) o;
      if (benchmark.equals(result.getString(MetricKeys.TEST_NAME))) {
        for (Object step : result.getJsonObject(MetricKeys.METRICS, new JsonObject()).getJsonArray(MetricKeys.SWEEP,
            new JsonArray())) {
          JsonObject s = (JsonObject) step;
          loads.addAll(Collections.nCopies(s.getInteger(MetricKeys.TOTAL_ITERATIONS), s.getString(MetricKeys.LOAD)));
        }
      }
    }
    return loads;
  }

  /**
   * How many of a benchmark's requests each of its runs sent, in order: one run with all of them,
   * unless the benchmark was repeated and its runs' counts add up to {@code total}.
   */
  private static List<Integer> runSizes(JsonObject metrics, String benchmark, int total) {
    for (Object o : metrics.getJsonArray(MetricKeys.RESULTS, new JsonArray())) {
      JsonObject result = (JsonObject) o;
      JsonArray runs = result.getJsonArray(MetricKeys.REPEAT_RUNS);
      if (benchmark.equals(result.getString(MetricKeys.TEST_NAME)) && runs != null) {
        List<Integer> sizes = new ArrayList<>();
        for (Object run : runs) {
          sizes.add(((JsonObject) run).getJsonObject(MetricKeys.METRICS, new JsonObject())
              .getInteger(MetricKeys.TOTAL_ITERATIONS, 0));
        }
        if (sizes.stream().mapToInt(Integer::intValue).sum() == total) {
          return sizes;
        }
      }
    }
    return List.of(total);
  }

  static JsonObject line(String benchmark, int index, RequestRecord r, long origin) {
    JsonArray chunks = new JsonArray();
    for (long t : r.chunks()) {
      chunks.add(ms(t - origin));
    }
    JsonObject out = new JsonObject().put("benchmark", benchmark).put("index", index)
        .put("t_sched_ms", r.scheduled() ? ms(r.sched() - origin) : null).put("t_send_ms", ms(r.send() - origin))
        .put("t_end_ms", ms(r.end() - origin)).put("chunks_ms", chunks)
        .put("t_connect_start_ms", r.connectStart() == RequestRecord.NO_CONNECTION ? null : ms(r.connectStart() - origin))
        .put("t_connected_ms", r.connected() == RequestRecord.NO_CONNECTION ? null : ms(r.connected() - origin))
        .put("output_tokens", r.outputTokens()).put("prompt_tokens", r.promptTokens())
        .put(MetricKeys.CACHED_PROMPT_TOKENS, r.cacheReported() ? r.cachedPromptTokens() : null)
        .put("token_count_source", r.tokenSource().name().toLowerCase(Locale.ROOT));
    if (r.server() != null) {
      // the engine's own account of this request, in llama.cpp's names, to set beside the client's times
      out.put(MetricKeys.SERVER_TIMINGS, new JsonObject().put("prompt_ms", r.server().promptMs())
          .put("predicted_ms", r.server().predictedMs()).put("predicted_n", r.server().predictedTokens()));
    }
    if (!r.ok()) {
      out.put("error", r.error());
    }
    return out;
  }

  /**
   * A short human summary: what ran and what was measured, then one line per benchmark with its
   * requests, errors, validity and headline figures; a repeated benchmark's figures carry the
   * half-width of their 95 % interval (±).
   */
  static String summary(JsonObject metrics) {
    StringBuilder out = new StringBuilder("# ").append(metrics.getString(MetricKeys.MODEL)).append(" on ")
        .append(metrics.getString(MetricKeys.ENGINE)).append("\n\n")
        .append("Suite `").append(metrics.getString(MetricKeys.SUITE_NAME)).append("`, ")
        .append(metrics.getBoolean(MetricKeys.PASSED, false) ? "passed" : "FAILED").append(", ")
        .append(metrics.getBoolean(MetricKeys.VALID, true) ? "valid" : "**not valid**").append(", ")
        .append(metrics.getValue(MetricKeys.TOTAL_TIME_SECONDS)).append(" s, ")
        .append(metrics.getString(MetricKeys.TIMESTAMP)).append(".").append(seed(metrics)).append("\n\n");
    measured(out, metrics);
    out.append("| benchmark | passed | valid | requests | errors | headline | TTFT p50 ms | TPOT p50 ms | E2E p99 ms"
            + " | goodput req/s | cache hits | client CPU |\n")
        .append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    boolean repeated = false;
    for (Object o : metrics.getJsonArray(MetricKeys.RESULTS, new JsonArray())) {
      JsonObject r = (JsonObject) o;
      JsonObject m = r.getJsonObject(MetricKeys.METRICS, new JsonObject());
      repeated |= r.containsKey(MetricKeys.REPEATS);
      out.append("| ").append(r.getString(MetricKeys.TEST_NAME))
          .append(r.containsKey(MetricKeys.REPEATS) ? " (" + r.getValue(MetricKeys.REPEATS) + " runs)" : "").append(" | ")
          .append(r.getBoolean(MetricKeys.PASSED, false) ? "yes" : "**no**").append(" | ")
          .append(r.getBoolean(MetricKeys.VALID, true) ? "yes" : "**no**").append(" | ")
          .append(text(m.getValue(MetricKeys.TOTAL_ITERATIONS))).append(" | ")
          .append(text(m.getValue(MetricKeys.ERROR_COUNT))).append(" | ")
          .append(headline(r)).append(" | ")
          .append(stat(r, MetricKeys.TTFT_MS, MetricKeys.P50)).append(" | ").append(stat(r, MetricKeys.TPOT_MS, MetricKeys.P50))
          .append(" | ").append(stat(r, MetricKeys.E2E_MS, MetricKeys.P99)).append(" | ")
          .append(withInterval(r, MetricKeys.GOODPUT, m.getValue(MetricKeys.GOODPUT))).append(" | ")
          .append(cacheHits(m)).append(" | ").append(clientCpu(m)).append(" |\n");
      for (Object error : r.getJsonArray(MetricKeys.ERRORS, new JsonArray())) {
        out.append("\n- ").append(r.getString(MetricKeys.TEST_NAME)).append(": ").append(error);
      }
      if (!r.getBoolean(MetricKeys.VALID, true)) {
        out.append("\n- ").append(r.getString(MetricKeys.TEST_NAME)).append(" is **invalid**: ")
            .append(r.getString(MetricKeys.INVALID_REASON));
      }
    }
    if (repeated) {
      out.append("\nA benchmark run several times shows the mean of its runs' figures ± the half-width of the mean's"
          + " 95 % confidence interval (Student's t over the runs; metrics.json holds each interval under"
          + " `confidence` and each run under `repeat_runs`).\n");
    }
    if (metrics.getJsonArray(MetricKeys.RESULTS, new JsonArray()).stream()
        .anyMatch(o -> ((JsonObject) o).getJsonObject(MetricKeys.METRICS, new JsonObject()).containsKey(MetricKeys.SLO))) {
      out.append("\nGoodput: requests per second that met every objective of the run's SLO.\n");
    }
    for (Object o : metrics.getJsonArray(MetricKeys.RESULTS, new JsonArray())) {
      sweep(out, (JsonObject) o);
    }
    return out.append("\n").toString();
  }

  /** What was measured, one line each: engine version, launch, image and model digests, svc version. */
  private static void measured(StringBuilder out, JsonObject metrics) {
    Object version = metrics.getValue(MetricKeys.ENGINE_VERSION);
    out.append("- Engine version: ").append(version != null ? version
        : "unknown (" + metrics.getValue(MetricKeys.ENGINE_VERSION_REASON, "not recorded") + ")").append("\n");
    if (metrics.getValue(MetricKeys.ENGINE_ARGS) instanceof JsonArray args) {
      out.append("- Engine started as: `").append(String.join(" ", args.stream().map(String::valueOf).toList()))
          .append("`\n");
    }
    if (metrics.getValue(MetricKeys.ENGINE_IMAGE_DIGEST) != null) {
      out.append("- Image digest: ").append(metrics.getValue(MetricKeys.ENGINE_IMAGE_DIGEST)).append("\n");
    }
    Object model = metrics.getValue(MetricKeys.MODEL_DIGEST);
    out.append("- Model digest: ").append(model != null ? model
        : "unknown (" + metrics.getValue(MetricKeys.MODEL_DIGEST_REASON, "not recorded") + ")").append("\n");
    out.append("- svc ").append(metrics.getValue(MetricKeys.SVC_VERSION, "version unknown")).append("\n\n");
  }

  private static String text(Object value) {
    return value == null ? "" : String.valueOf(value);
  }

  /**
   * {@code value} as text, followed by "± h" where the entry holds a confidence interval for the
   * figure at {@code path}; empty when the value is absent.
   */
  static String withInterval(JsonObject entry, String path, Object value) {
    if (value == null) {
      return "";
    }
    Double half = halfWidth(entry, path);
    return half == null ? String.valueOf(value) : value + " ± " + round(half);
  }

  private static Double halfWidth(JsonObject entry, String path) {
    Object figure = entry.getJsonObject(MetricKeys.CONFIDENCE, new JsonObject())
        .getJsonObject(MetricKeys.CONFIDENCE_FIGURES, new JsonObject()).getValue(path);
    Confidence confidence = Confidence.fromJson(figure);
    return confidence == null ? null : confidence.halfWidth();
  }

  private static String round(double value) {
    return new java.math.BigDecimal(value).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
  }

  /** The run's seed and where it came from, as a sentence after the header; empty when not recorded. */
  private static String seed(JsonObject metrics) {
    Object seed = metrics.getValue(MetricKeys.SEED);
    if (seed == null) {
      return "";
    }
    return metrics.getBoolean(MetricKeys.SEED_GIVEN, false) ? " Seed " + seed + " (given)."
        : " Seed " + seed + " (drawn for this run; --seed " + seed + " sends the same prompts again).";
  }

  /**
   * A benchmark's cache-hit fraction as a percentage: "unknown" when the engine did not report
   * its cached prompt tokens, empty for a benchmark without prompts of svc's (quality).
   */
  static String cacheHits(JsonObject metrics) {
    if (!metrics.containsKey(MetricKeys.CACHE_HIT_FRACTION)) {
      return "";
    }
    Object fraction = metrics.getValue(MetricKeys.CACHE_HIT_FRACTION);
    return fraction instanceof Number n ? String.format(Locale.ROOT, "%.1f %%", n.doubleValue() * 100) : "unknown";
  }

  /**
   * The client's CPU over a benchmark's measured requests, e.g. "3.1 s, 52 % of 2 cores, 10 % idle";
   * empty for a benchmark that has none recorded (quality).
   */
  static String clientCpu(JsonObject metrics) {
    JsonObject cpu = metrics.getJsonObject(MetricKeys.CLIENT_CPU);
    if (cpu == null) {
      return "";
    }
    Object idle = cpu.getValue(MetricKeys.CLIENT_CORES_IDLE);
    return String.format(Locale.ROOT, "%.1f s, %.0f %% of %d core(s), %s idle", cpu.getDouble(MetricKeys.CLIENT_CPU_S),
        cpu.getDouble(MetricKeys.CLIENT_UTILISATION) * 100, cpu.getInteger(MetricKeys.CLIENT_CORES),
        idle instanceof Number n ? String.format(Locale.ROOT, "%.0f %%", n.doubleValue() * 100) : "unknown");
  }

  /** A swept benchmark's steps as a table; its headline row above is the max-throughput step. */
  private static void sweep(StringBuilder out, JsonObject result) {
    JsonObject m = result.getJsonObject(MetricKeys.METRICS, new JsonObject());
    JsonArray steps = m.getJsonArray(MetricKeys.SWEEP);
    if (steps == null) {
      return;
    }
    out.append("\n\n## ").append(result.getString(MetricKeys.TEST_NAME)).append(": sweep (headline: the ")
        .append(steps.size() > 1 ? steps.getJsonObject(1).getString(MetricKeys.LOAD) : "max-throughput").append(" step)\n\n")
        .append("| step | load | requests/s | output tokens/s | TTFT p50 ms | TPOT p50 ms | E2E p99 ms | queueing p99 ms | valid |\n")
        .append("|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < steps.size(); i++) {
      JsonObject step = steps.getJsonObject(i);
      out.append("| ").append(i + 1).append(" | ").append(step.getString(MetricKeys.LOAD)).append(" | ")
          .append(step.getValue(MetricKeys.REQUEST_THROUGHPUT)).append(" | ")
          .append(step.getValue(MetricKeys.OUTPUT_TOKEN_THROUGHPUT)).append(" | ")
          .append(stat(step, MetricKeys.TTFT_MS, MetricKeys.P50)).append(" | ").append(stat(step, MetricKeys.TPOT_MS, MetricKeys.P50))
          .append(" | ").append(stat(step, MetricKeys.E2E_MS, MetricKeys.P99)).append(" | ")
          .append(stat(step, MetricKeys.QUEUEING_DELAY_MS, MetricKeys.P99)).append(" | ")
          .append(step.getBoolean(MetricKeys.VALID, true) ? "yes" : "**no**").append(" |\n");
    }
    if (m.containsKey(MetricKeys.SWEEP_NOTE)) {
      out.append("\n").append(m.getString(MetricKeys.SWEEP_NOTE)).append(".\n");
    }
  }

  /** A benchmark's headline figure: its accuracy, or its output throughput; empty when it has neither. */
  static String headline(JsonObject entry) {
    JsonObject metrics = entry.getJsonObject(MetricKeys.METRICS, new JsonObject());
    Optional<QualityScore> quality = QualityScore.in(metrics);
    if (quality.isPresent()) {
      return String.format(Locale.ROOT, "accuracy %.3f (%d/%d)", quality.get().accuracy(), quality.get().correct(),
          quality.get().total());
    }
    if (!metrics.containsKey(MetricKeys.OUTPUT_TOKEN_THROUGHPUT)) {
      return "";
    }
    Double half = halfWidth(entry, MetricKeys.OUTPUT_TOKEN_THROUGHPUT);
    return String.format(Locale.ROOT, "%.1f", metrics.getDouble(MetricKeys.OUTPUT_TOKEN_THROUGHPUT))
        + (half == null ? "" : " ± " + round(half)) + " tokens/s";
  }

  /** A statistic of a benchmark's distribution (or a sweep step's), with its interval where it has one. */
  private static String stat(JsonObject entry, String key, String stat) {
    JsonObject metrics = entry.containsKey(MetricKeys.METRICS) ? entry.getJsonObject(MetricKeys.METRICS) : entry;
    JsonObject d = metrics.getJsonObject(key);
    return d == null ? "" : withInterval(entry, key + "." + stat, d.getValue(stat));
  }

  private static double ms(long nanos) {
    return Math.round(nanos / 1e3) / 1e3;
  }
}
