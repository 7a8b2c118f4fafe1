package dev.svc.server;

import dev.svc.core.events.EventAddresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Records the events of one source from the event bus (registered before the test acts) and lets a
 * test wait for the next one that matches — synchronisation on what the server publishes, no sleeps.
 */
public final class EventWaiter implements AutoCloseable {

  private final MessageConsumer<JsonObject> consumer;
  private final LinkedBlockingQueue<JsonObject> queue = new LinkedBlockingQueue<>();
  private final List<JsonObject> all = new CopyOnWriteArrayList<>();

  private EventWaiter(Vertx vertx, String address) {
    consumer = vertx.eventBus().consumer(address, m -> {
      all.add(m.body());
      queue.add(m.body());
    });
    consumer.completion().await();
  }

  public static EventWaiter source(Vertx vertx, String sourceId) {
    return new EventWaiter(vertx, EventAddresses.forSource(sourceId));
  }

  public static EventWaiter everything(Vertx vertx) {
    return new EventWaiter(vertx, EventAddresses.ALL);
  }

  /** The next event (after those already taken) that matches; fails after the timeout. */
  public JsonObject next(Predicate<JsonObject> match, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        JsonObject event = left <= 0 ? null : queue.poll(left, TimeUnit.NANOSECONDS);
        if (event == null) {
          throw new AssertionError("No matching event within " + timeout + "; seen: " + all);
        }
        if (match.test(event)) {
          return event;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("Interrupted while waiting for an event", e);
    }
  }

  /** The next status event with this status. */
  public JsonObject status(String status, Duration timeout) {
    return next(e -> "status".equals(e.getString("type")) && status.equals(e.getJsonObject("data").getString("status")),
        timeout);
  }

  public List<JsonObject> all() {
    return List.copyOf(all);
  }

  @Override
  public void close() {
    consumer.unregister().await();
  }
}
