package dev.svc.bench.run;

import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.EngineVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What a run measured, beyond the engine's name and the model's path: the version the engine gave,
 * what svc started it with, the image's and the model's digests, and how often the suite ran.
 * Unknowns are null with a reason; none of them fails a run.
 *
 * @param engineVersion the running engine's answer, null when the run failed before it was asked
 * @param engineArgs the image or binary and its arguments, null when svc did not start the engine
 * @param imageDigest the image's digest, null for a local process or an endpoint
 * @param modelDigest {@code sha256:…}, or null with {@code modelDigestReason}
 */
public record RunProvenance(EngineVersion engineVersion, List<String> engineArgs, String imageDigest, String modelDigest,
    String modelDigestReason, int repeats) {

  /** A run that measured once, the suite run once. */
  public static final int ONE_REPEAT = 1;

  /** The top-level keys of metrics.json, added to {@code metrics}. */
  void putInto(JsonObject metrics) {
    EngineVersion version = engineVersion != null ? engineVersion
        : EngineVersion.unknown("not asked: the run failed before the engine could be asked (see error)");
    metrics.put(MetricKeys.ENGINE_IMAGE_DIGEST, imageDigest);
    metrics.put(MetricKeys.ENGINE_VERSION, version.version());
    if (version.reason() != null) {
      metrics.put(MetricKeys.ENGINE_VERSION_REASON, version.reason());
    }
    metrics.put(MetricKeys.ENGINE_ARGS, engineArgs == null ? null : new JsonArray(engineArgs));
    metrics.put(MetricKeys.MODEL_DIGEST, modelDigest);
    if (modelDigest == null) {
      metrics.put(MetricKeys.MODEL_DIGEST_REASON, modelDigestReason);
    }
    metrics.put(MetricKeys.REPEATS, repeats);
  }
}
