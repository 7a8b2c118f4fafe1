package dev.svc.server.http;

import dev.svc.server.store.AgentStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.Timings;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.EventStore;
import io.vertx.core.Vertx;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.RoutingContext;
import java.util.function.IntConsumer;

/** The Server-Sent Events endpoints of protocol.md section 7: every event, or the events of one source. */
public final class EventStreamRoutes implements ApiArea {

  private final Vertx vertx;
  private final EventLog events;
  private final EventStore eventStore;
  private final Guard guard;
  private final Timings timings;
  private final SseSources sources;
  /** This router's streams: a router serves one HTTP verticle instance, so one event loop. */
  private final SseFanout fanout;

  /** {@code streams} is told +1 when a stream opens here and -1 when it ends. */
  public EventStreamRoutes(Vertx vertx, EventLog events, EventStore eventStore, Guard guard, Timings timings, AgentStore agents,
      QuickTestStore tests, CampaignStore campaigns, IntConsumer streams) {
    this.vertx = vertx;
    this.events = events;
    this.eventStore = eventStore;
    this.guard = guard;
    this.timings = timings;
    this.sources = new SseSources(agents, tests, campaigns, eventStore);
    this.fanout = new SseFanout(events, streams);
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
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
    guard.global(ctx);
    Long resume = SseRequest.lastEventId(ctx);
    SseRequest.requireEventStream(ctx);
    return eventStore.lastId().compose(newest -> {
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
    guard.global(ctx);
    String id = SseRequest.sourceId(ctx);
    Long resume = SseRequest.lastEventId(ctx);
    return sources.requireFinished(id).compose(finished -> {
      SseRequest.requireEventStream(ctx);
      return eventStore.lastId().compose(newest -> {
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
    return new SseSession(vertx, ctx.response(), eventStore, scope, timings.keepaliveMs(),
        fanout);
  }
}
