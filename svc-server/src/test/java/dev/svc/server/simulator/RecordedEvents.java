package dev.svc.server.simulator;

import dev.svc.core.events.EventAddresses;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Every stored event ({@link EventAddresses#ALL}) and every end of a simulation
 * ({@link TestAgentSimulator#FINISHED}), recorded from the moment of creation with their arrival
 * time, so a test registers before it submits (the test's id is only known afterwards) and then
 * waits on futures, never on sleeps. Finished notices are recorded as {@code {"type":"finished","data":…}}.
 */
final class RecordedEvents implements AutoCloseable {

  /** An event and when it arrived ({@link System#nanoTime()}). */
  record Arrival(JsonObject event, long nanos) {

    String type() {
      return event.getString("type");
    }

    JsonObject data() {
      return event.getJsonObject("data");
    }

    String testId() {
      return data().getString("test_id");
    }
  }

  private record Waiter(Predicate<Arrival> match, CompletableFuture<Arrival> future) {
  }

  private final List<Arrival> arrivals = new ArrayList<>();
  private final List<Waiter> waiters = new ArrayList<>();
  private final MessageConsumer<JsonObject> events;
  private final MessageConsumer<JsonObject> finished;

  RecordedEvents(Vertx vertx) {
    events = vertx.eventBus().consumer(EventAddresses.ALL, m -> add(m.body()));
    finished = vertx.eventBus().consumer(TestAgentSimulator.FINISHED,
        m -> add(new JsonObject().put("type", "finished").put("data", m.body())));
    events.completion().await();
    finished.completion().await();
  }

  private void add(JsonObject event) {
    Arrival arrival = new Arrival(event, System.nanoTime());
    List<Waiter> matched = new ArrayList<>();
    synchronized (this) {
      arrivals.add(arrival);
      waiters.removeIf(w -> {
        if (w.match().test(arrival)) {
          matched.add(w);
          return true;
        }
        return false;
      });
    }
    matched.forEach(w -> w.future().complete(arrival));
  }

  /** The first recorded event, past or future, that matches. */
  synchronized CompletableFuture<Arrival> first(Predicate<Arrival> match) {
    for (Arrival a : arrivals) {
      if (match.test(a)) {
        return CompletableFuture.completedFuture(a);
      }
    }
    CompletableFuture<Arrival> future = new CompletableFuture<>();
    waiters.add(new Waiter(match, future));
    return future;
  }

  /** The test's first status event with this status. */
  CompletableFuture<Arrival> status(String testId, String status) {
    return first(a -> "status".equals(a.type()) && testId.equals(a.testId())
        && status.equals(a.data().getString("status")));
  }

  /** The test's first terminal status event (completed or failed). */
  CompletableFuture<Arrival> terminal(String testId) {
    return first(a -> "status".equals(a.type()) && testId.equals(a.testId())
        && List.of("completed", "failed").contains(a.data().getString("status")));
  }

  /** The test's n-th log event (1-based). */
  CompletableFuture<Arrival> log(String testId, int n) {
    int[] seen = new int[1];
    synchronized (this) {
      return first(a -> "log".equals(a.type()) && testId.equals(a.testId()) && ++seen[0] == n);
    }
  }

  /** The simulator's notice that the test's simulation ended. */
  CompletableFuture<Arrival> finished(String testId) {
    return first(a -> "finished".equals(a.type()) && testId.equals(a.testId()));
  }

  /** The recorded events of one test, of one type, in arrival order. */
  synchronized List<Arrival> of(String testId, String type) {
    return arrivals.stream().filter(a -> type.equals(a.type()) && testId.equals(a.testId())).toList();
  }

  /** Every recorded event of one test, in arrival order. */
  synchronized List<Arrival> of(String testId) {
    return arrivals.stream().filter(a -> testId.equals(a.testId())).toList();
  }

  @Override
  public void close() {
    events.unregister().await();
    finished.unregister().await();
  }
}
