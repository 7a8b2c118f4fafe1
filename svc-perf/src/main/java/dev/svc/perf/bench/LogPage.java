package dev.svc.perf.bench;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * What the list benchmark reads of a test's log answer ({@code {"lines": [{"id", "created_at", "line"}]}}):
 * the lines' ids, in order, to ask for the lines after one of them.
 */
record LogPage(List<Long> lineIds) {

  LogPage {
    lineIds = List.copyOf(lineIds);
  }

  static LogPage parse(JsonObject body) {
    JsonArray lines = Fields.optArray(body, "lines");
    if (lines == null) {
      throw new BadMessage("Field 'lines' is required");
    }
    List<Long> ids = new ArrayList<>(lines.size());
    for (Object line : lines) {
      if (!(line instanceof JsonObject object)) {
        throw new BadMessage("Field 'lines' must be a list of objects");
      }
      Long id = Fields.optLong(object, "id", null, 0, Long.MAX_VALUE);
      if (id == null) {
        throw new BadMessage("Field 'lines' must give each line's 'id'");
      }
      ids.add(id);
    }
    return new LogPage(ids);
  }
}
