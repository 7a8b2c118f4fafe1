package dev.svc.bench.measure;

import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Service-level objectives for goodput (docs/metrics.md, "Throughput, goodput and SLOs"): a request is good when it
 * completed and met every objective given. Parsed from {@code ttft_ms=500,tpot_ms=30}.
 */
public record Slo(Map<String, Double> limits) {

  /** The objectives that can be set, by their metric. */
  public static final String TTFT = "ttft_ms";
  public static final String TPOT = "tpot_ms";
  public static final String E2E = "e2e_ms";

  public static final Slo NONE = new Slo(Map.of());

  public Slo {
    limits = Map.copyOf(limits);
  }

  public static Slo parse(String text) {
    if (text == null || text.isBlank()) {
      return NONE;
    }
    Map<String, Double> limits = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      String[] pair = part.split("=", 2);
      String key = pair[0].trim().toLowerCase(Locale.ROOT);
      if (!key.equals(TTFT) && !key.equals(TPOT) && !key.equals(E2E)) {
        throw new IllegalArgumentException("Unknown SLO '" + pair[0].trim() + "'; use ttft_ms, tpot_ms or e2e_ms");
      }
      if (pair.length < 2) {
        throw new IllegalArgumentException("SLO " + key + " needs a value in ms, e.g. " + key + "=500");
      }
      double value;
      try {
        value = Double.parseDouble(pair[1].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("SLO " + key + " needs a number of ms, got '" + pair[1].trim() + "'");
      }
      if (!(value > 0) || !Double.isFinite(value)) {
        throw new IllegalArgumentException("SLO " + key + " must be above 0 ms, got " + pair[1].trim());
      }
      if (limits.put(key, value) != null) {
        throw new IllegalArgumentException("SLO " + key + " is given twice");
      }
    }
    return new Slo(limits);
  }

  public boolean isEmpty() {
    return limits.isEmpty();
  }

  /**
   * Completed and within every objective. A request with fewer than two output tokens has no TPOT,
   * so a TPOT objective does not apply to it (as it is excluded from the TPOT statistics).
   */
  public boolean met(RequestRecord r) {
    if (!r.ok()) {
      return false;
    }
    boolean tpot = r.outputTokens() < 2 || within(TPOT, r.tpotMs());
    return within(TTFT, r.ttftMs()) && tpot && within(E2E, r.e2eMs());
  }

  public JsonObject toJson() {
    JsonObject out = new JsonObject();
    limits.forEach(out::put);
    return out;
  }

  private boolean within(String key, double value) {
    Double limit = limits.get(key);
    return limit == null || (!Double.isNaN(value) && value <= limit);
  }
}
