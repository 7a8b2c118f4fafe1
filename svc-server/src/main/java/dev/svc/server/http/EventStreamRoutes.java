package dev.svc.server.http;

import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** The Server-Sent Events endpoints of protocol.md section 7: every event, or the events of one source. */
final class EventStreamRoutes {

  private final ApiContext api;
  private final SseSources sources;
  /** This router's streams: a router serves one HTTP verticle instance, so one event loop. */
  private final SseFanout fanout;

  EventStreamRoutes(ApiContext api) {
    this.api = api;
    this.sources = new SseSources(api);
    this.fanout = new SseFanout(api.events());
  }

  void mount(Router router) {
    router.get("/api/v1/events").handler(Handlers.async(this::all));
    router.get("/api/v1/events/stream").handler(Handlers.async(this::all));
    router.get("/api/v1/events/stream/:source_id").handler(Handlers.async(this::source));
  }

  /**
   * Every event; without a resume id it starts live (after the newest stored event). A resume id newer
   * than any stored one comes from another database or a log that was reset: the stream says so with a
   * {@code reset} frame and goes live, rather than waiting silently for ids that may never come.
   */
  private Future<?> all(RoutingContext ctx) {
    api.guard().global(ctx);
    Long resume = SseRequest.lastEventId(ctx);
    SseRequest.requireEventStream(ctx);
    return api.eventStore().lastId().compose(newest -> {
      boolean foreign = resume != null && resume > newest;
      SseSession session = session(ctx, SseScope.all());
      if (foreign) {
        session.startWith(SseFrame.reset(resume, newest, "live"));
      }
      return session.open(() -> Future.succeededFuture(resume == null || foreign ? newest : resume));
    });
  }

  /**
   * One source's events; without a resume id it replays the whole (kept) history, so a page opened
   * mid-run sees every line. A finished test or campaign replays what follows the resume id and ends;
   * with nothing to follow it answers 204 so that EventSource stops reconnecting. A resume id newer than
   * any stored event (another database, a reset log) replays from the start after a {@code reset} frame.
   */
  private Future<?> source(RoutingContext ctx) {
    api.guard().global(ctx);
    String id = SseRequest.sourceId(ctx);
    Long resume = SseRequest.lastEventId(ctx);
    return sources.requireFinished(id).compose(finished -> {
      SseRequest.requireEventStream(ctx);
      return api.eventStore().lastId().compose(newest -> {
        boolean foreign = resume != null && resume > newest;
        long after = resume == null || foreign ? 0 : resume;
        Future<Boolean> more = finished ? sources.hasEventsAfter(id, after) : Future.succeededFuture(true);
        return more.compose(any -> {
          if (!any) {
            return ctx.response().setStatusCode(204).end(); // EventSource stops reconnecting
          }
          SseSession session = session(ctx, SseScope.source(id));
          if (foreign) {
            session.startWith(SseFrame.reset(resume, newest, "from_start"));
          }
          if (finished) {
            session.endAfterReplay();
          }
          return session.open(() -> Future.succeededFuture(after));
        });
      });
    });
  }

  private SseSession session(RoutingContext ctx, SseScope scope) {
    return new SseSession(api.vertx(), ctx.response(), api.eventStore(), scope, api.timings().keepaliveMs(),
        fanout);
  }
}
