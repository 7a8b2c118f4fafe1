package dev.svc.server.http;

import io.vertx.ext.web.RoutingContext;
import java.util.regex.Pattern;

/** Reads and checks what an event-stream request asks for: the source, the resume id, the media type. */
final class SseRequest {

  private static final Pattern SOURCE_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern EVENT_ID = Pattern.compile("[0-9]{1,18}");

  private SseRequest() {
  }

  /** The {@code :source_id} path parameter; one that no source can have is an unknown id (404). */
  static String sourceId(RoutingContext ctx) {
    String id = ctx.pathParam("source_id");
    if (id == null || !SOURCE_ID.matcher(id).matches()) {
      throw ApiError.notFound("Unknown event source: ids are 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'");
    }
    return id;
  }

  /** The id to resume after: the Last-Event-ID header (an EventSource reconnecting) or ?last_event_id=; null if none. */
  static Long lastEventId(RoutingContext ctx) {
    String header = ctx.request().getHeader("Last-Event-ID");
    String value = header != null ? header.trim() : ctx.request().getParam("last_event_id");
    if (value == null) {
      return null;
    }
    if (!EVENT_ID.matcher(value).matches()) {
      throw ApiError.badRequest("Last-Event-ID / last_event_id must be a non-negative integer");
    }
    return Long.parseLong(value);
  }

  /**
   * A client that names what it accepts must accept event streams (EventSource sends
   * {@code Accept: text/event-stream}); no Accept header means anything, as HTTP has it.
   */
  static void requireEventStream(RoutingContext ctx) {
    String accept = ctx.request().getHeader("Accept");
    if (accept == null) {
      return;
    }
    for (String range : accept.split(",")) {
      String type = range.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
      if (type.equals("text/event-stream") || type.equals("text/*") || type.equals("*/*")) {
        return;
      }
    }
    throw new ApiError(406, "This is an event stream: send 'Accept: text/event-stream'");
  }
}
