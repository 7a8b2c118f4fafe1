package dev.svc.server.legacy;

import dev.svc.server.results.ResultsScan;
import dev.svc.server.results.ResultsScanner;
import dev.svc.server.results.ScannedResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Path;
import java.util.List;

/**
 * The first major version's read-only viewer: scans results directories for metrics.json on every
 * request and serves them as JSON and a summary page, with no database.
 */
public final class LegacyRoutes {

  private static final String JSON = "application/json; charset=utf-8";

  private final Vertx vertx;
  private final List<Path> roots;
  private final ResultsScanner scanner = new ResultsScanner();

  private LegacyRoutes(Vertx vertx, List<Path> roots) {
    this.vertx = vertx;
    this.roots = List.copyOf(roots);
  }

  /** Adds the legacy routes; mount last, since it answers every other {@code /api/} path with 404. */
  public static void mount(Vertx vertx, Router router, List<Path> roots) {
    LegacyRoutes routes = new LegacyRoutes(vertx, roots);
    router.get("/api/health").handler(routes::health);
    router.get("/api/results").handler(routes::list);
    router.get("/api/results/:index").handler(routes::one);
    router.route("/api/*").handler(ctx -> sendError(ctx, 404, "Not found"));
    router.route("/api/*").failureHandler(LegacyRoutes::failure);
    router.get("/").handler(routes::page);
  }

  private void health(RoutingContext ctx) {
    sendJson(ctx, new JsonObject().put("status", "ok").put("mode", "legacy").encode());
  }

  private void list(RoutingContext ctx) {
    scan().onSuccess(scan -> sendJson(ctx, listJson(scan.results()).encode()))
        .onFailure(ctx::fail);
  }

  private void one(RoutingContext ctx) {
    String index = ctx.pathParam("index");
    scan().onSuccess(scan -> sendOne(ctx, scan.results(), index)).onFailure(ctx::fail);
  }

  private void page(RoutingContext ctx) {
    scan()
        .onSuccess(scan -> ctx.response()
            .putHeader("content-type", "text/html; charset=utf-8")
            .putHeader("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'")
            .end(LegacySummaryPage.render(scan, roots)))
        .onFailure(e -> ctx.response().setStatusCode(500)
            .putHeader("content-type", "text/plain; charset=utf-8")
            .end("The results directories could not be scanned."));
  }

  private Future<ResultsScan> scan() {
    return vertx.executeBlocking(() -> scanner.scan(roots), false);
  }

  private static void sendOne(RoutingContext ctx, List<ScannedResult> results, String index) {
    int position = parseIndex(index);
    if (position < 0 || position >= results.size()) {
      sendError(ctx, 404, "No result with index " + index);
      return;
    }
    sendJson(ctx, entry(position, results.get(position)).encode());
  }

  private static int parseIndex(String index) {
    try {
      return Integer.parseInt(index);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static JsonArray listJson(List<ScannedResult> results) {
    JsonArray array = new JsonArray();
    for (int i = 0; i < results.size(); i++) {
      array.add(entry(i, results.get(i)));
    }
    return array;
  }

  private static JsonObject entry(int index, ScannedResult result) {
    return result.data().copy()
        .put("index", index)
        .put("path", result.directory().toString());
  }

  private static void failure(RoutingContext ctx) {
    int status = ctx.statusCode() >= 400 ? ctx.statusCode() : 500;
    String message = status == 404 ? "Not found" : status < 500 ? "Bad request" : "Internal error";
    sendError(ctx, status, message);
  }

  private static void sendError(RoutingContext ctx, int status, String message) {
    if (ctx.response().ended()) {
      return;
    }
    if (ctx.response().headWritten()) {
      ctx.response().reset();
      return;
    }
    ctx.response().setStatusCode(status);
    sendJson(ctx, new JsonObject().put("error", message).encode());
  }

  private static void sendJson(RoutingContext ctx, String body) {
    ctx.response().putHeader("content-type", JSON).end(body);
  }
}
