package dev.svc.server.results;

import dev.svc.core.Timestamps;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The identifying fields of a metrics.json document, read from the current layout or the older
 * tool's layout, so scanned files and submitted results are described the same way.
 *
 * @param version the svc (or older kitt) version that wrote the document; {@code "unknown"} when absent
 * @param model the model, {@code "unknown"} when absent
 * @param engine the engine, {@code "unknown"} when absent
 * @param suiteName the suite ({@code suite_name}, or the older {@code suite}), {@code "unknown"} when absent
 * @param timestamp the document's own timestamp in canonical form; empty when absent or unreadable
 * @param passed whether the run passed
 */
public record ResultFields(
    String version,
    String model,
    String engine,
    String suiteName,
    Optional<String> timestamp,
    boolean passed) {

  static final String UNKNOWN = "unknown";

  /** Reads the fields from a metrics.json document, falling back to the older layout's names. */
  public static ResultFields extract(JsonObject data) {
    return new ResultFields(
        text(data, "svc_version", "kitt_version"),
        text(data, "model"),
        text(data, "engine"),
        text(data, "suite_name", "suite"),
        timestampOf(data.getValue("timestamp")),
        passedOf(data));
  }

  private static String text(JsonObject data, String... keys) {
    for (String key : keys) {
      Object value = data.getValue(key);
      if (value instanceof String s && !s.isBlank()) {
        return s;
      }
      if (value instanceof Number || value instanceof Boolean) {
        return value.toString();
      }
    }
    return UNKNOWN;
  }

  /** Canonical form of an ISO-8601 instant; a date-time without an offset is taken as UTC. */
  private static Optional<String> timestampOf(Object value) {
    if (!(value instanceof String text)) {
      return Optional.empty();
    }
    Optional<String> normalized = Timestamps.normalize(text);
    return normalized.isPresent() ? normalized : naiveUtc(text);
  }

  private static Optional<String> naiveUtc(String text) {
    try {
      return Optional.of(
          Timestamps.format(LocalDateTime.parse(text.trim()).toInstant(ZoneOffset.UTC)));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** The top-level {@code passed} flag; without one, every benchmark must have passed. */
  private static boolean passedOf(JsonObject data) {
    Object flag = data.getValue("passed");
    if (flag instanceof Boolean b) {
      return b;
    }
    Object results = data.getValue("results");
    if (!(results instanceof JsonArray array) || array.isEmpty()) {
      return false;
    }
    return array.stream()
        .allMatch(r -> r instanceof JsonObject o && Boolean.TRUE.equals(o.getValue("passed")));
  }
}
