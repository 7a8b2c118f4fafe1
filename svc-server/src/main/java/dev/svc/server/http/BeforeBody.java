package dev.svc.server.http;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;

/**
 * A check that runs before a route's BodyHandler, so that a request it refuses is answered
 * without its body being read. Vert.x Web orders a route's handlers by kind (platform, security
 * policy, body, authentication, …, user) and refuses a user handler ahead of the body; a
 * credentials check that must come first is declared a platform handler for that order.
 */
final class BeforeBody implements PlatformHandler {

  private final Handler<RoutingContext> check;

  private BeforeBody(Handler<RoutingContext> check) {
    this.check = check;
  }

  static BeforeBody of(Handler<RoutingContext> check) {
    return new BeforeBody(check);
  }

  @Override
  public void handle(RoutingContext ctx) {
    check.handle(ctx);
  }
}
