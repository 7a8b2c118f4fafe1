package dev.svc.server.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Function;

/** Adapts future-returning handlers: a thrown ApiError or a failed future goes to the failure handler. */
public final class Handlers {

  private Handlers() {
  }

  public static Handler<RoutingContext> async(Function<RoutingContext, Future<?>> handler) {
    return ctx -> {
      try {
        handler.apply(ctx).onFailure(ctx::fail);
      } catch (RuntimeException e) {
        ctx.fail(e);
      }
    };
  }
}
