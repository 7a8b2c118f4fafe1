package dev.svc.server.http;

import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Supplier;

/** The Server-Sent Events endpoints of protocol.md section 7: every event, or the events of one source. */
final class EventStreamRoutes {

  private final ApiContext api;
  private final SseSources sources;

  EventStreamRoutes(ApiContext api) {
    this.api = api;
    this.sources = new SseSources(api);
  }

  void mount(Router router) {
    router.get("/api/v1/events").handler(Handlers.async(this::all));
    router.get("/api/v1/events/stream").handler(Handlers.async(this::all));
    router.get("/api/v1/events/stream/:source_id").handler(Handlers.async(this::source));
  }

  /** Every event; without a resume id it starts live (after the newest stored event). */
  private Future<?> all(RoutingContext ctx) {
    api.guard().global(ctx);
    Long resume = SseRequest.lastEventId(ctx);
    SseRequest.requireEventStream(ctx);
    return open(ctx, SseScope.all(), resume == null ? api.eventStore()::lastId : () -> Future.succeededFuture(resume));
  }

  /** One source's events; without a resume id it replays the whole history, so a page opened mid-run sees every line. */
  private Future<?> source(RoutingContext ctx) {
    api.guard().global(ctx);
    String id = SseRequest.sourceId(ctx);
    Long resume = SseRequest.lastEventId(ctx);
    long after = resume == null ? 0 : resume;
    return sources.require(id).compose(v -> {
      SseRequest.requireEventStream(ctx);
      return sources.endedAt(id, after);
    }).compose(ended -> ended ? ctx.response().setStatusCode(204).end() // EventSource stops reconnecting
        : open(ctx, SseScope.source(id), () -> Future.succeededFuture(after)));
  }

  private Future<Void> open(RoutingContext ctx, SseScope scope, Supplier<Future<Long>> startAfter) {
    return new SseSession(api.vertx(), ctx.response(), api.eventStore(), scope, api.timings().keepaliveMs())
        .open(startAfter);
  }
}
