package dev.svc.perf.fleet;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At most so many of the fleet's agents doing one thing at once (opening a connection, registering).
 * A TLS handshake with a client certificate costs the server milliseconds of CPU, a registration a
 * few writes; thousands started in the same second queue on the server past their timeouts, and
 * their retries keep the queue full (none got through: 1,000 agents started within 30 s on a busy
 * 2-core machine), errors that a real fleet, whose hosts start minutes apart, does not cause. Agents
 * on any event loop share a gate; a waiting agent is resumed on its own.
 */
final class Gate {

  private final AtomicInteger free;
  private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;

  Gate(int permits) {
    this.free = new AtomicInteger(permits);
  }

  /** Completes on {@code context} once the agent may go on; {@link #release()} when it is done (or failed). */
  Future<Void> acquire(Context context) {
    if (closed) {
      return Future.failedFuture("the fleet stopped");
    }
    Promise<Void> granted = Promise.promise();
    waiting.add(() -> context.runOnContext(v -> granted.complete()));
    admit();
    return granted.future();
  }

  void release() {
    free.incrementAndGet();
    admit();
  }

  /** The fleet stops: nobody waiting is let through any more (their event loops may be closing). */
  void close() {
    closed = true;
    waiting.clear();
  }

  private void admit() {
    while (!closed && !waiting.isEmpty()) {
      int n = free.get();
      if (n <= 0) {
        return;
      }
      if (free.compareAndSet(n, n - 1)) {
        Runnable next = waiting.poll();
        if (next == null) {
          // another thread took it: give the permit back and look again, a waiter may have come meanwhile
          free.incrementAndGet();
          continue;
        }
        next.run();
      }
    }
  }
}
