package dev.svc.server.web;

import dev.svc.server.http.Guard;
import dev.svc.server.http.Sessions;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;

/**
 * Who may see a page: with a server auth token, only a browser with an authenticated session
 * (everyone else is sent to /login). Every page gets a session, so it can embed the session's
 * CSRF token for the scripts and forms that change state through the API.
 */
final class PageAccess {

  static final String CSRF_KEY = "svc.csrf";
  static final String AUTH_KEY = "svc.auth";

  private final Guard guard;

  PageAccess(Guard guard) {
    this.guard = guard;
  }

  /** Route handler for the pages: redirects to /login when needed, otherwise records the CSRF token. */
  void handle(RoutingContext ctx) {
    Optional<Sessions.Session> session = guard.sessions().read(ctx);
    boolean authenticated = session.map(Sessions.Session::authenticated).orElse(false);
    if (guard.hasGlobalToken() && !authenticated) {
      SecurityHeaders.apply(ctx.response());
      ctx.response().setStatusCode(302).putHeader("Location", "/login").putHeader("Cache-Control", "no-store").end();
      return;
    }
    Sessions.Session current = session.orElseGet(() -> guard.sessions().issue(ctx, false));
    ctx.put(CSRF_KEY, guard.sessions().csrfToken(current));
    ctx.put(AUTH_KEY, guard.hasGlobalToken());
    ctx.next();
  }
}
