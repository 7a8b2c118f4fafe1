package dev.svc.server.http;

import dev.svc.core.protocol.ErrorBody;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** JSON replies; every API response goes through here so the content type is always right. */
public final class Replies {

  private Replies() {
  }

  public static void json(RoutingContext ctx, int status, JsonObject body) {
    send(ctx, status, body.encode());
  }

  public static void json(RoutingContext ctx, int status, JsonArray body) {
    send(ctx, status, body.encode());
  }

  public static void ok(RoutingContext ctx, JsonObject body) {
    json(ctx, 200, body);
  }

  public static void error(RoutingContext ctx, int status, String message) {
    json(ctx, status, new ErrorBody(message).toJson());
  }

  private static void send(RoutingContext ctx, int status, String body) {
    if (ctx.response().ended() || ctx.response().closed()) {
      return;
    }
    ctx.response()
        .setStatusCode(status)
        .putHeader("Content-Type", "application/json; charset=utf-8")
        .putHeader("Cache-Control", "no-store")
        .end(body);
  }
}
