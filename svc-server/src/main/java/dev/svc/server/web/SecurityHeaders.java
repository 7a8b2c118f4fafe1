package dev.svc.server.web;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * The headers every dashboard response carries: a strict Content-Security-Policy (only this origin,
 * no inline scripts or styles), no MIME sniffing and no cross-origin referrers.
 */
final class SecurityHeaders {

  static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'";

  private SecurityHeaders() {
  }

  static void apply(HttpServerResponse response) {
    response.putHeader("Content-Security-Policy", CSP)
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("Referrer-Policy", "same-origin");
  }

  /** A route handler that sets the headers on everything outside /api and passes the request on. */
  static void handle(RoutingContext ctx) {
    if (!ctx.request().path().startsWith("/api/")) {
      apply(ctx.response());
    }
    ctx.next();
  }
}
