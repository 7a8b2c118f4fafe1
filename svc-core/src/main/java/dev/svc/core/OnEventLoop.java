package dev.svc.core;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.Supplier;

/**
 * Builds an asynchronous chain on one of Vert.x's event loops. Built on any other thread, a step
 * can be attached after the I/O it waits for has already happened: an HTTP response's
 * {@code body()} asked for once the response has been read never completes (Vert.x 5.0's
 * HttpClientResponse drops the end it was not yet waiting for, eclipse-vertx/vert.x#6038), and the
 * caller waits until its timeout. On an event loop, each step is attached in the callback of the
 * one before, before that loop can read anything more.
 */
public final class OnEventLoop {

  private OnEventLoop() {
  }

  /** {@code chain} built and run on an event loop of {@code vertx}; at once when already on one of its. */
  public static <T> Future<T> call(Vertx vertx, Supplier<Future<T>> chain) {
    Context current = Vertx.currentContext();
    if (current != null && current.owner() == vertx && current.isEventLoopContext() && Context.isOnEventLoopThread()) {
      return chain.get();
    }
    Promise<T> promise = Promise.promise();
    vertx.getOrCreateContext().runOnContext(v -> {
      try {
        chain.get().onComplete(promise);
      } catch (RuntimeException e) {
        promise.fail(e);
      }
    });
    return promise.future();
  }
}
