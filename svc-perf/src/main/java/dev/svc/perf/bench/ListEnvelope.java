package dev.svc.perf.bench;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;

/** What the list benchmark reads of a list answer's envelope ({@code GET /api/v1/results} and the like): its page count. */
record ListEnvelope(long pages) {

  static ListEnvelope parse(JsonObject body) {
    Long pages = Fields.optLong(body, "pages", null, 0, Integer.MAX_VALUE);
    if (pages == null) {
      throw new BadMessage("Field 'pages' is required");
    }
    return new ListEnvelope(pages);
  }
}
