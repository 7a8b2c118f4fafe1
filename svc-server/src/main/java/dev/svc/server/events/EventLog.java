package dev.svc.server.events;

import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.LoggedEvent;
import dev.svc.server.store.Event;
import dev.svc.server.store.EventStore;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The numbered event log, and the one way to write a change that events report: the change and its
 * events are stored in one transaction, one write at a time, and the events are published once
 * committed, in the order of their ids. A crash loses a change together with its events or neither,
 * so a subscriber resuming by id never misses what the database holds.
 *
 * <p>Every write that adds or removes events runs here: status moves, log lines, results and their
 * links, deletions of campaigns and results with their events. A write that no event reports and
 * that removes none (settings, issued certificates, acknowledged commands, agents' liveness) keeps
 * a transaction of its own, so as not to queue behind the log.
 *
 * <p>A {@link Write} must use only the connection it is given (the SQLite pool has one connection,
 * held by the transaction) and must not call {@link #write} itself (it would wait behind itself).
 */
public final class EventLog {

  /** What a write did: its value for the caller, and the events it causes (none when nothing changed). */
  public record Written<T>(T value, List<Event> events) {
    public static <T> Written<T> of(T value, Event... events) {
      return new Written<>(value, List.of(events));
    }

    public static <T> Written<T> of(T value, List<Event> events) {
      return new Written<>(value, List.copyOf(events));
    }
  }

  /** A change made in the log's transaction. */
  @FunctionalInterface
  public interface Write<T> {
    Future<Written<T>> apply(SqlConnection conn);
  }

  private record Done<T>(T value, List<LoggedEvent> stored) {
  }

  /** A local listener: the events of each committed write, handed over on its context. */
  private record Listener(Context context, Consumer<List<LoggedEvent>> handler) {
  }

  private final Vertx vertx;
  private final Pool pool;
  private final EventStore store;
  private final Context context;
  private final Queue<Runnable> queue = new ArrayDeque<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private boolean busy;

  /**
   * {@code context}: the log's own event-loop context (not a verticle's: its writes queue there), as
   * {@link dev.svc.core.EventLoops#contexts} makes one.
   */
  public EventLog(Vertx vertx, Pool pool, EventStore store, Context context) {
    this.vertx = vertx;
    this.pool = pool;
    this.store = store;
    this.context = context;
  }

  /**
   * Hands the events of every write committed from now on to {@code handler}, on {@code context}, one
   * call per write with its events in id order (the calls in commit order): the server's own
   * subscribers (SSE) take them this way, one listener per event loop, rather than one bus consumer
   * each, which the bus would give a copy of every event. The events are shared by every listener and
   * must not be changed. An event the listener does not get was committed before this call returned,
   * so a read of the database begun after it finds it. Run the returned action to stop.
   */
  public Runnable listen(Context context, Consumer<List<LoggedEvent>> handler) {
    Listener listener = new Listener(context, handler);
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Stores and publishes one event; completes with it as published. */
  public Future<LoggedEvent> append(String sourceId, String type, JsonObject data) {
    return submit(conn -> Future.succeededFuture(Written.of(null, new Event(sourceId, type, data))))
        .map(done -> done.stored().get(0));
  }

  /**
   * Runs {@code work} and stores the events it returns in one transaction, then publishes them;
   * completes with the write's value (on the caller's context). A failed write stores and publishes nothing.
   */
  public <T> Future<T> write(Write<T> work) {
    return submit(work).map(Done::value);
  }

  private <T> Future<Done<T>> submit(Write<T> work) {
    Context caller = Vertx.currentContext();
    Promise<Done<T>> result = Promise.promise();
    context.runOnContext(v -> {
      queue.add(() -> run(work).onComplete(ar -> {
        if (caller == null || caller == context) {
          result.handle(ar);
        } else {
          caller.runOnContext(back -> result.handle(ar));
        }
        busy = false;
        drain();
      }));
      drain();
    });
    return result.future();
  }

  private void drain() {
    if (busy || queue.isEmpty()) {
      return;
    }
    busy = true;
    queue.poll().run();
  }

  private <T> Future<Done<T>> run(Write<T> work) {
    Future<Done<T>> committed;
    try {
      committed = pool.withTransaction(conn -> work.apply(conn).compose(written -> storeEvents(conn, written)));
    } catch (RuntimeException e) {
      committed = Future.failedFuture(e);
    }
    return committed.onSuccess(done -> {
      done.stored().forEach(this::publish);
      handOver(done.stored());
    });
  }

  private void handOver(List<LoggedEvent> stored) {
    if (stored.isEmpty() || listeners.isEmpty()) {
      return;
    }
    // one copy for every listener: the stored rows also go back to append's caller, who may change them
    List<LoggedEvent> events = stored.stream().map(LoggedEvent::copy).toList();
    for (Listener listener : listeners) {
      listener.context().runOnContext(v -> listener.handler().accept(events));
    }
  }

  private <T> Future<Done<T>> storeEvents(SqlConnection conn, Written<T> written) {
    return store.insert(conn, written.events()).map(stored -> new Done<>(written.value(), stored));
  }

  private void publish(LoggedEvent event) {
    JsonObject json = event.toJson();
    vertx.eventBus().publish(EventAddresses.ALL, json);
    vertx.eventBus().publish(EventAddresses.forSource(event.sourceId()), json);
  }
}
