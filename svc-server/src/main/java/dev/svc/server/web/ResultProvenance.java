package dev.svc.server.web;

import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.lifecycle.ShellWords;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a result says it measured, gathered from metrics.json's top level and its benchmarks' loads:
 * svc's version, the engine's version, image and launch, the model and its digest, the seed, the
 * repeats and each benchmark's prompts hash. One list, in one order, for the result page and the
 * CSV export; an unknown value shows its recorded reason.
 */
final class ResultProvenance {

  /**
   * One fact: its metrics.json key, its value as recorded (null when unknown), and how the page shows
   * it ({@code label} null: in the CSV only, as a reason or a flag is).
   */
  record Fact(String key, String value, String label, String shown) {
  }

  private ResultProvenance() {
  }

  static List<Fact> of(ResultDocument doc) {
    JsonObject data = doc.data();
    List<Fact> out = new ArrayList<>();
    add(out, MetricKeys.SVC_VERSION, "svc version", doc.text(MetricKeys.SVC_VERSION));
    add(out, "kitt_version", "kitt version", doc.text("kitt_version"));
    add(out, MetricKeys.ENGINE, "Engine", doc.engine());
    withReason(out, MetricKeys.ENGINE_VERSION, "Engine version", doc, MetricKeys.ENGINE_VERSION_REASON);
    add(out, MetricKeys.ENGINE_IMAGE, "Engine image", doc.text(MetricKeys.ENGINE_IMAGE));
    add(out, MetricKeys.ENGINE_IMAGE_DIGEST, "Image digest", doc.text(MetricKeys.ENGINE_IMAGE_DIGEST));
    if (data.getValue(MetricKeys.ENGINE_ARGS) instanceof JsonArray args) {
      add(out, MetricKeys.ENGINE_ARGS, "Launch arguments", ShellWords.join(args.stream().map(String::valueOf).toList()));
    } else if (data.containsKey(MetricKeys.ENGINE_ARGS)) {
      out.add(new Fact(MetricKeys.ENGINE_ARGS, null, "Launch arguments", "none: svc did not start the engine"));
    }
    add(out, MetricKeys.MODEL, "Model", doc.model());
    withReason(out, MetricKeys.MODEL_DIGEST, "Model digest", doc, MetricKeys.MODEL_DIGEST_REASON);
    String seed = doc.text(MetricKeys.SEED);
    if (seed != null) {
      boolean given = Boolean.TRUE.equals(data.getValue(MetricKeys.SEED_GIVEN));
      out.add(new Fact(MetricKeys.SEED, seed, "Seed", seed + (given ? " (given)" : " (drawn for this run)")));
      add(out, MetricKeys.SEED_GIVEN, null, doc.text(MetricKeys.SEED_GIVEN));
    }
    add(out, MetricKeys.REPEATS, "Repeats", doc.text(MetricKeys.REPEATS));
    List<String> hashes = new ArrayList<>();
    for (BenchmarkMetrics b : doc.benchmarks()) {
      String hash = b.load().get(MetricKeys.LOAD_PROMPTS_HASH);
      if (hash != null) {
        hashes.add(b.name() + " " + hash);
      }
    }
    add(out, MetricKeys.LOAD_PROMPTS_HASH, "Prompts hash", hashes.isEmpty() ? null : String.join(", ", hashes));
    return out;
  }

  /** The page's label/value pairs. */
  static List<Map<String, Object>> pairs(ResultDocument doc) {
    return of(doc).stream().filter(f -> f.label() != null)
        .map(f -> Map.<String, Object>of("label", f.label(), "value", f.shown())).toList();
  }

  /** A value that may be unknown: the page shows its reason in its place, the CSV the reason's own key. */
  private static void withReason(List<Fact> out, String key, String label, ResultDocument doc, String reasonKey) {
    String value = doc.text(key);
    String reason = doc.text(reasonKey);
    if (value != null) {
      add(out, key, label, value);
    } else if (reason != null) {
      out.add(new Fact(key, null, label, "unknown: " + reason));
      out.add(new Fact(reasonKey, reason, null, null));
    }
  }

  private static void add(List<Fact> out, String key, String label, String value) {
    if (value != null && !value.isBlank()) {
      out.add(new Fact(key, value, label, value));
    }
  }
}
