package dev.svc.server.http;

import dev.svc.server.metrics.NodeMetrics;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * {@code GET /metrics}: every meter of this node (Vert.x's and svc's) in Prometheus' text format,
 * for a Prometheus server to scrape. The same rule as {@code GET /api/v1/metrics}: the global token
 * as the bearer token (or a logged-in session) when the server has one.
 */
public final class MetricsRoutes implements ApiArea {

  private final Vertx vertx;
  private final Guard guard;
  private final NodeMetrics metrics;

  public MetricsRoutes(Vertx vertx, Guard guard, NodeMetrics metrics) {
    this.vertx = vertx;
    this.guard = guard;
    this.metrics = metrics;
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
    router.get("/metrics").handler(this::scrape);
  }

  private void scrape(RoutingContext ctx) {
    try {
      guard.global(ctx);
    } catch (ApiError e) {
      refused(ctx, e);
      return;
    }
    // writing a few hundred series is CPU work that grows with the meters: a worker does it, not the event loop
    vertx.executeBlocking(metrics::scrape, false).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      ctx.response().putHeader("Content-Type", NodeMetrics.CONTENT_TYPE).putHeader("Cache-Control", "no-store")
          .putHeader("X-Content-Type-Options", "nosniff").end(ar.result());
    });
  }

  /** A refusal outside /api/ is plain text, like the other non-API answers. */
  private static void refused(RoutingContext ctx, ApiError error) {
    if (error.retryAfterSeconds() > 0) {
      ctx.response().putHeader("Retry-After", Long.toString(error.retryAfterSeconds()));
    }
    if (error.status() == 401) {
      ctx.response().putHeader("WWW-Authenticate", "Bearer");
    }
    ctx.response().setStatusCode(error.status()).putHeader("Content-Type", "text/plain; charset=utf-8")
        .putHeader("X-Content-Type-Options", "nosniff").putHeader("Cache-Control", "no-store")
        .end(error.getMessage() + "\n");
  }
}
