package dev.svc.server.campaigns;

import dev.svc.core.events.EventAddresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * Records every event the server publishes (registered before the test acts) and lets the test
 * wait for the first recorded event that matches, through a CompletableFuture with a timeout.
 */
final class BusRecorder implements AutoCloseable {

  private record Waiter(Predicate<JsonObject> match, CompletableFuture<JsonObject> found) {
  }

  private final MessageConsumer<JsonObject> consumer;
  private final List<JsonObject> events = new CopyOnWriteArrayList<>();
  private final List<Waiter> waiters = new CopyOnWriteArrayList<>();

  BusRecorder(Vertx vertx) {
    consumer = vertx.eventBus().consumer(EventAddresses.ALL, m -> {
      synchronized (this) {
        events.add(m.body());
        for (Waiter w : waiters) {
          if (w.match().test(m.body())) {
            w.found().complete(m.body());
            waiters.remove(w);
          }
        }
      }
    });
    consumer.completion().await();
  }

  /** The first event (already recorded or to come) that matches. */
  JsonObject await(Predicate<JsonObject> match, Duration timeout) {
    CompletableFuture<JsonObject> found = new CompletableFuture<>();
    synchronized (this) {
      events.stream().filter(match).findFirst().ifPresentOrElse(found::complete,
          () -> waiters.add(new Waiter(match, found)));
    }
    try {
      return found.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("No matching event within " + timeout + "; seen: " + events);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("Interrupted", e);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    }
  }

  List<JsonObject> events() {
    return List.copyOf(events);
  }

  static Predicate<JsonObject> of(String source, String type) {
    return e -> source.equals(e.getString("source_id")) && type.equals(e.getString("type"));
  }

  static Predicate<JsonObject> status(String source, String status) {
    return of(source, "status").and(e -> status.equals(e.getJsonObject("data").getString("status")));
  }

  static Predicate<JsonObject> log(String source, String contains) {
    return of(source, "log").and(e -> e.getJsonObject("data").getString("line", "").contains(contains));
  }

  /** A queued status event of a quick test that is not one of {@code seen}. */
  static Predicate<JsonObject> queuedTestOtherThan(List<String> seen) {
    return e -> "status".equals(e.getString("type")) && e.getJsonObject("data").containsKey("test_id")
        && "queued".equals(e.getJsonObject("data").getString("status"))
        && !seen.contains(e.getJsonObject("data").getString("test_id"));
  }

  @Override
  public void close() {
    consumer.unregister().await();
  }
}
