package dev.svc.core.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Log lines of a test (protocol.md 3, {@code POST /api/v1/quicktest/<id>/logs}): the old agent's
 * single {@code {"line"}}, or a batch {@code {"lines", "seq"}} whose seq makes a retry idempotent.
 * The agent and the fleet simulator write it with {@link #toJson}; the server reads it with
 * {@link #parse}, whole.
 *
 * @param seq null for the old agent's single line and for a batch sent without one
 */
public record LogBatch(List<String> lines, Long seq) {

  public static final int MAX_LINES = 1000;
  public static final int MAX_LINE_LENGTH = 64 * 1024;

  public LogBatch {
    lines = List.copyOf(lines);
  }

  public static LogBatch parse(JsonObject body) {
    List<String> lines;
    Long seq = null;
    if (body.getValue("lines") != null) {
      lines = Fields.optStringList(body, "lines");
      Integer given = Fields.optInt(body, "seq", null, 0, Integer.MAX_VALUE);
      seq = given == null ? null : given.longValue();
    } else if (body.getValue("line") instanceof String line) {
      lines = List.of(line);
    } else {
      throw new BadMessage("Field 'line' (a string) or 'lines' (a list of strings) is required");
    }
    if (lines.size() > MAX_LINES) {
      throw new BadMessage("At most " + MAX_LINES + " lines per request");
    }
    for (String line : lines) {
      if (line.length() > MAX_LINE_LENGTH) {
        throw new BadMessage("A log line must be at most " + MAX_LINE_LENGTH + " characters");
      }
    }
    return new LogBatch(lines, seq);
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("lines", new JsonArray(List.copyOf(lines)));
    if (seq != null) {
      json.put("seq", seq);
    }
    return json;
  }
}
