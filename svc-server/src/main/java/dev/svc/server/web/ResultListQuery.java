package dev.svc.server.web;

import dev.svc.core.Timestamps;
import io.vertx.core.MultiMap;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The filters and page of /results, read from the query string the way GET /api/v1/results reads
 * them (model, engine, suite_name, agent_id, since, until, page, per_page), but forgiving: a date
 * alone or a date-time without offset (taken as UTC) is accepted, and a bad value becomes a
 * message for the page instead of an error.
 *
 * @param raw the filter values as typed, for the form and the pager links
 * @param since canonical lower bound, or null
 * @param until canonical upper bound, or null
 * @param errors one sentence per value that could not be read
 */
record ResultListQuery(Map<String, String> raw, String since, String until, int page, int perPage,
    List<String> errors) {

  static final int DEFAULT_PER_PAGE = 25;
  static final int MAX_PER_PAGE = 200;
  static final List<String> FILTERS = List.of("model", "engine", "suite_name", "agent_id", "since", "until");

  static ResultListQuery of(MultiMap params) {
    Map<String, String> raw = new LinkedHashMap<>();
    for (String name : FILTERS) {
      String v = params.get(name);
      if (v != null && !v.isBlank()) {
        raw.put(name, v.trim());
      }
    }
    List<String> errors = new ArrayList<>();
    String since = bound(raw.get("since"), false, "since", errors);
    String until = bound(raw.get("until"), true, "until", errors);
    int page = number(params.get("page"), 1, 1, 1_000_000, "page", errors);
    int perPage = number(params.get("per_page"), DEFAULT_PER_PAGE, 1, MAX_PER_PAGE, "per_page", errors);
    return new ResultListQuery(raw, since, until, page, perPage, List.copyOf(errors));
  }

  String value(String name) {
    return raw.getOrDefault(name, "");
  }

  /** A filter value for the store: null when unset. */
  String filter(String name) {
    return raw.get(name);
  }

  int offset() {
    return (page - 1) * perPage;
  }

  /** The query string of this list at another page, filters kept ("" when there is nothing to keep). */
  String query(int atPage) {
    StringBuilder q = new StringBuilder();
    raw.forEach((k, v) -> append(q, k, v));
    if (perPage != DEFAULT_PER_PAGE) {
      append(q, "per_page", String.valueOf(perPage));
    }
    if (atPage != 1) {
      append(q, "page", String.valueOf(atPage));
    }
    return q.toString();
  }

  private static void append(StringBuilder q, String k, String v) {
    q.append(q.length() == 0 ? "?" : "&").append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
  }

  /** A since/until bound: an ISO-8601 instant, a date-time taken as UTC, or a date (start or end of that day). */
  private static String bound(String text, boolean endOfDay, String name, List<String> errors) {
    if (text == null) {
      return null;
    }
    Optional<String> instant = Timestamps.normalize(text);
    if (instant.isPresent()) {
      return instant.get();
    }
    try {
      return Timestamps.format(LocalDateTime.parse(text).toInstant(ZoneOffset.UTC));
    } catch (DateTimeParseException e) {
      // not a date-time; maybe a date
    }
    try {
      LocalDate day = LocalDate.parse(text);
      return Timestamps.format(endOfDay ? day.plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC).minusMillis(1)
          : day.atStartOfDay().toInstant(ZoneOffset.UTC));
    } catch (DateTimeParseException e) {
      errors.add("'" + name + "' must be a date (2026-03-10) or an ISO-8601 time (2026-03-10T10:00:00Z).");
      return null;
    }
  }

  private static int number(String text, int fallback, int min, int max, String name, List<String> errors) {
    if (text == null || text.isBlank()) {
      return fallback;
    }
    String digits = text.trim();
    int value = digits.matches("\\d{1,9}") ? Integer.parseInt(digits) : -1;
    if (value < min || value > max) {
      errors.add("'" + name + "' must be a whole number between " + min + " and " + max + ".");
      return fallback;
    }
    return value;
  }
}
