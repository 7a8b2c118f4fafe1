package dev.svc.server.web;

import dev.svc.server.http.ApiError;
import dev.svc.server.http.Guard;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.Map;

/**
 * GET /login shows the token form; POST /login checks the token (form field {@code token}) and,
 * when it is the server's, issues an authenticated session and redirects to the home page. A
 * post whose Origin is another site is refused, so no other site can log a browser in. POST /logout
 * clears the session.
 */
final class LoginPage {

  private final Guard guard;
  private final PageRenderer renderer;

  LoginPage(Guard guard, PageRenderer renderer) {
    this.guard = guard;
    this.renderer = renderer;
  }

  void mount(Router router) {
    router.get("/login").handler(this::form);
    BodyHandler form = BodyHandler.create(false).setBodyLimit(16 * 1024);
    router.post("/login").handler(form).handler(this::submit);
    router.post("/logout").handler(form).handler(this::logout);
  }

  private void form(RoutingContext ctx) {
    if (!guard.hasGlobalToken()) {
      redirect(ctx, "/");
      return;
    }
    renderer.render(ctx, 200, "login", "login", Map.of());
  }

  private void submit(RoutingContext ctx) {
    if (!guard.hasGlobalToken()) {
      redirect(ctx, "/");
      return;
    }
    if (crossSite(ctx)) {
      renderer.render(ctx, 403, "login", "login", Map.of("error", "Cross-site login refused."));
      return;
    }
    String token = ctx.request().getFormAttribute("token");
    var refused = guard.checkLogin(ctx, token == null ? null : token.trim());
    if (refused.isPresent()) {
      ApiError error = refused.get();
      if (error.retryAfterSeconds() > 0) {
        ctx.response().putHeader("Retry-After", Long.toString(error.retryAfterSeconds()));
      }
      renderer.render(ctx, error.status(), "login", "login",
          Map.of("error", error.status() == 429 ? error.getMessage() + "." : "Wrong token."));
      return;
    }
    guard.sessions().issue(ctx, true);
    redirect(ctx, "/");
  }

  /** Logging out needs the session's CSRF token (the form field the layout's logout form carries). */
  private void logout(RoutingContext ctx) {
    var session = guard.sessions().read(ctx);
    if (crossSite(ctx) || session.isPresent() && !guard.sessions().csrfValid(ctx, session.get())) {
      SecurityHeaders.apply(ctx.response());
      ctx.response().setStatusCode(403).putHeader("Content-Type", "text/plain; charset=utf-8")
          .end("CSRF token missing or invalid\n");
      return;
    }
    guard.sessions().clear(ctx);
    redirect(ctx, guard.hasGlobalToken() ? "/login" : "/");
  }

  /** An Origin header naming another host than the one the request was sent to. */
  private static boolean crossSite(RoutingContext ctx) {
    String fetchSite = ctx.request().getHeader("Sec-Fetch-Site");
    if (fetchSite != null && !fetchSite.equals("same-origin") && !fetchSite.equals("none")) {
      return true;
    }
    String origin = ctx.request().getHeader("Origin");
    if (origin == null || origin.equals("null")) {
      return origin != null;
    }
    String host = ctx.request().authority() == null ? null : ctx.request().authority().toString();
    int scheme = origin.indexOf("://");
    return host == null || scheme < 0 || !origin.substring(scheme + 3).equalsIgnoreCase(host);
  }

  private static void redirect(RoutingContext ctx, String location) {
    SecurityHeaders.apply(ctx.response());
    ctx.response().setStatusCode(302).putHeader("Location", location).putHeader("Cache-Control", "no-store").end();
  }
}
