package dev.svc.server.http;

import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;

/** The REST API under /api/v1: every route, the body limits and the JSON failure handling. */
public final class ApiRouter {

  public static final long BODY_LIMIT = 1024L * 1024;
  public static final long RESULT_BODY_LIMIT = 16L * 1024 * 1024;

  private ApiRouter() {
  }

  /**
   * The API's router: the Host allowlist and throttle first ({@code gate}), the query decoded once,
   * then every area's routes, then the JSON failure handling.
   */
  public static Router create(Vertx vertx, RequestGate gate, List<ApiArea> areas) {
    Router router = Router.router(vertx);
    BodyHandler body = BodyHandler.create(false).setBodyLimit(BODY_LIMIT);
    BodyHandler largeBody = BodyHandler.create(false).setBodyLimit(RESULT_BODY_LIMIT);
    // first of all, for the dashboard too: the Host allowlist and the failed-authentication throttle
    router.route().handler(gate);
    router.route("/api/*").handler(ctx -> {
      ctx.response().putHeader("X-Content-Type-Options", "nosniff");
      try {
        ctx.request().params(); // decode the query once here: a broken escape (?page=%zz) is the client's fault
      } catch (IllegalArgumentException e) {
        Replies.error(ctx, 400, "Malformed query string");
        return;
      }
      ctx.next();
    });
    areas.forEach(area -> area.mount(router, body, largeBody));
    router.route("/api/*").failureHandler(new ApiFailureHandler());
    router.errorHandler(400, ctx -> unmatched(ctx, 400, "Bad request: "));
    router.errorHandler(404, ctx -> unmatched(ctx, 404, "Not found: "));
    router.errorHandler(405, ctx -> unmatched(ctx, 405, "Method not allowed: "));
    return router;
  }

  /** Every route of a router as "METHOD path" (path parameters as {name}), for the OpenAPI check. */
  public static java.util.List<String> describe(Router router) {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (io.vertx.ext.web.Route route : router.getRoutes()) {
      if (route.getPath() == null || route.methods() == null || route.methods().isEmpty()) {
        continue;
      }
      String path = route.getPath().replaceAll(":([A-Za-z_]+)", "{$1}");
      route.methods().forEach(m -> out.add(m.name() + " " + path));
    }
    return out;
  }

  private static void unmatched(io.vertx.ext.web.RoutingContext ctx, int status, String prefix) {
    if (ctx.request().path().startsWith("/api/")) {
      Replies.error(ctx, status, prefix + ctx.request().method() + " " + ctx.request().path());
    } else if (!ctx.response().ended()) {
      ctx.response().setStatusCode(status).putHeader("Content-Type", "text/plain; charset=utf-8")
          .end(status == 404 ? "Not found\n" : status == 400 ? "Bad request\n" : "Method not allowed\n");
    }
  }
}
