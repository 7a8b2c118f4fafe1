package dev.svc.server.web;

import dev.svc.core.events.EventType;
import dev.svc.core.events.LoggedEvent;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.LogLine;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The log a run page renders. A finished run shows its stored lines; a live one shows the log
 * events stored so far and the id of the last event read, from which the page's event stream
 * resumes ({@code ?last_event_id=}), so no line is missed or shown twice between the two.
 *
 * @param lines {@code {"line","created_at"}} maps, oldest first
 * @param lastEventId the id of the last event read (0 when none or for stored lines)
 * @param lastStatus the status of the last status event read, or null when none was read
 */
record LogLines(List<Map<String, Object>> lines, long lastEventId, String lastStatus) {

  /** Lines read per page render; a longer live log continues through the stream. */
  static final int LIMIT = 10_000;

  /** The stored lines of a test or campaign. */
  static LogLines stored(List<LogLine> rows) {
    List<Map<String, Object>> lines = new ArrayList<>();
    rows.forEach(row -> lines.add(line(row.line(), row.createdAt())));
    return new LogLines(lines, 0, null);
  }

  /** The log events of a source stored so far, and where its stream resumes. */
  static Future<LogLines> fromEvents(EventStore events, String sourceId) {
    return events.afterForSource(sourceId, 0, LIMIT).map(rows -> {
      List<Map<String, Object>> lines = new ArrayList<>();
      long last = 0;
      String status = null;
      for (LoggedEvent event : rows) {
        last = event.id();
        if (EventType.LOG.equals(event.type())) {
          lines.add(line(event.line(), event.createdAt()));
        } else if (EventType.STATUS.equals(event.type())) {
          status = event.status();
        }
      }
      return new LogLines(lines, last, status);
    });
  }

  private static Map<String, Object> line(String text, String createdAt) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("line", text == null ? "" : text);
    out.put("created_at", createdAt);
    return out;
  }
}
