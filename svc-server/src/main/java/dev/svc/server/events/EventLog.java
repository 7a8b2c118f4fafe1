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
import io.vertx.sqlclient.Tuple;
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
 * <p>In a cluster, the nodes share the log. Each write with events takes a PostgreSQL advisory lock
 * (held until it commits) before it inserts them, so ids are committed in their order across the
 * cluster, and a reader never finds id n+1 without id n. Each node announces its commits on the
 * clustered event bus; every node then reads the events after the last it handed over from the
 * database and hands them to its listeners, so every node's subscribers see every node's events in
 * one order, the database's.
 *
 * <p>A {@link Write} must use only the connection it is given (the SQLite pool has one connection,
 * held by the transaction) and must not call {@link #write} itself (it would wait behind itself).
 */
public final class EventLog {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EventLog.class);

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

  /** The advisory lock that orders event ids across a cluster's nodes ("svc" in ASCII). */
  static final long ORDER_LOCK = 0x737663L;
  /** Internal to the server's nodes: the id of the last event a node committed. */
  static final String COMMITTED = "svc.internal.events.committed";
  private static final int TAIL_BATCH = 500;
  private static final long TAIL_RETRY_MS = 1_000;

  private final Vertx vertx;
  private final Pool pool;
  private final EventStore store;
  private final Context context;
  private final boolean clustered;
  private final Queue<Runnable> queue = new ArrayDeque<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();
  private boolean busy;
  /** Clustered: the last id handed to the listeners, whether tailing runs, and whether it must look again. */
  private long handedUpTo;
  private boolean tailing;
  private boolean tailAgain;

  /**
   * {@code context}: the log's own event-loop context (not a verticle's: its writes queue there), as
   * {@link dev.svc.core.EventLoops#contexts} makes one.
   */
  public EventLog(Vertx vertx, Pool pool, EventStore store, Context context) {
    this(vertx, pool, store, context, false);
  }

  private EventLog(Vertx vertx, Pool pool, EventStore store, Context context, boolean clustered) {
    this.vertx = vertx;
    this.pool = pool;
    this.store = store;
    this.context = context;
    this.clustered = clustered;
  }

  /**
   * The log of a node of a cluster (PostgreSQL): its listeners get every node's events, read back
   * from the database in id order. Completes once it follows the other nodes' commits.
   */
  public static Future<EventLog> clustered(Vertx vertx, Pool pool, EventStore store, Context context) {
    EventLog log = new EventLog(vertx, pool, store, context, true);
    Promise<EventLog> ready = Promise.promise();
    context.runOnContext(v -> store.lastId().compose(last -> {
      log.handedUpTo = last;
      return vertx.eventBus().<Long>consumer(COMMITTED, m -> {
        if (m.body() != null && m.body() > log.handedUpTo) {
          log.tail();
        }
      }).completion();
    }).map(log).onComplete(ready));
    return ready.future();
  }

  /**
   * Hands the events of every write committed from now on to {@code handler}, on {@code context}, one
   * call per write with its events in id order (the calls in commit order; in a cluster, one call per
   * batch read back, every node's events in id order): the server's own
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
      if (!clustered) {
        handOver(done.stored());
      } else if (!done.stored().isEmpty()) {
        vertx.eventBus().publish(COMMITTED, done.stored().get(done.stored().size() - 1).id());
        tail();
      }
    });
  }

  /**
   * Clustered: hands the listeners the events committed after the last handed over, read from the
   * database in id order; one read at a time, again while commits were announced during it.
   */
  private void tail() {
    if (tailing) {
      tailAgain = true;
      return;
    }
    tailing = true;
    tailAgain = false;
    store.after(handedUpTo, TAIL_BATCH).onComplete(ar -> {
      tailing = false;
      if (ar.failed()) {
        // read again shortly; nothing is skipped, since the next read starts after the last handed over
        LOG.warn("Events after {} not read for this node's subscribers: {}", handedUpTo, ar.cause().toString());
        vertx.setTimer(TAIL_RETRY_MS, t -> context.runOnContext(v -> tail()));
        return;
      }
      List<LoggedEvent> events = ar.result();
      if (!events.isEmpty()) {
        handedUpTo = events.get(events.size() - 1).id();
        handOver(events);
      }
      if (tailAgain || events.size() == TAIL_BATCH) {
        tail();
      }
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
    Future<Void> ordered = !clustered || written.events().isEmpty() ? Future.succeededFuture()
        : conn.preparedQuery("SELECT pg_advisory_xact_lock(?)").execute(Tuple.of(ORDER_LOCK)).mapEmpty();
    return ordered.compose(v -> store.insert(conn, written.events())).map(stored -> new Done<>(written.value(), stored));
  }

  private void publish(LoggedEvent event) {
    JsonObject json = event.toJson();
    vertx.eventBus().publish(EventAddresses.ALL, json);
    vertx.eventBus().publish(EventAddresses.forSource(event.sourceId()), json);
  }
}
