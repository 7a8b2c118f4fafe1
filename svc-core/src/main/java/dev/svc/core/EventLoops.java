package dev.svc.core;

import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Contexts of their own on Vert.x's event loops, through the public API only: every instance of a
 * deployed verticle gets a new event-loop context, and Vert.x hands the loops out in turn, so
 * {@code count} empty verticles give {@code count} contexts spread over the loops. (The internal
 * {@code VertxInternal.createEventLoopContext} does the same without a deployment, at the price of
 * an API that may change in any minor version.)
 */
public final class EventLoops {

  /** The contexts, and the deployment that holds them: closing it undeploys the empty verticles. */
  public record Contexts(Vertx vertx, List<Context> contexts, String deploymentId) {

    public Context get(int i) {
      return contexts.get(i);
    }

    public int size() {
      return contexts.size();
    }

    public Future<Void> close() {
      return vertx.undeploy(deploymentId);
    }
  }

  private EventLoops() {
  }

  /** {@code count} new event-loop contexts, in the order the loops were handed out. */
  public static Future<Contexts> contexts(Vertx vertx, int count) {
    List<Context> made = Collections.synchronizedList(new ArrayList<>());
    return vertx.deployVerticle(() -> new VerticleBase() {
      @Override
      public Future<?> start() {
        made.add(context);
        return Future.succeededFuture();
      }
    }, new DeploymentOptions().setInstances(count)).map(id -> new Contexts(vertx, List.copyOf(made), id));
  }
}
