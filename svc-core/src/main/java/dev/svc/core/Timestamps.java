package dev.svc.core;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/** Every timestamp on the wire and in the database: ISO-8601 UTC, milliseconds, {@code Z}. */
public final class Timestamps {

  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Timestamps() {
  }

  public static String now() {
    return format(Instant.now());
  }

  public static String format(Instant instant) {
    return FORMAT.format(instant.truncatedTo(ChronoUnit.MILLIS));
  }

  /** Parses any ISO-8601 instant (with offset or Z); empty when the text is not one. */
  public static Optional<Instant> parse(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(text.trim()));
    } catch (DateTimeParseException e) {
      try {
        return Optional.of(java.time.OffsetDateTime.parse(text.trim()).toInstant());
      } catch (DateTimeParseException e2) {
        return Optional.empty();
      }
    }
  }

  /** Normalises an ISO-8601 text to the canonical form; empty when it is not a timestamp. */
  public static Optional<String> normalize(String text) {
    return parse(text).map(Timestamps::format);
  }
}
