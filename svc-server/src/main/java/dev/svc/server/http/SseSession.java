package dev.svc.server.http;

import dev.svc.core.events.LoggedEvent;
import dev.svc.server.store.EventStore;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open event stream. It subscribes to the live events first (its loop's {@link SseFanout}) and
 * holds them, replays the stored events from the database at the client's pace, then sends the held
 * ones and goes live: no event is lost or sent twice between replay and live, because ids only grow
 * and none at or below the last id sent is written. A live client whose write queue is full is
 * disconnected (it resumes with Last-Event-ID), so one slow reader never buffers without bound nor
 * slows the others. Everything runs on the request's event loop.
 */
final class SseSession {

  private static final Logger LOG = LoggerFactory.getLogger(SseSession.class);

  /** Stored events read per query while catching up. */
  static final int PAGE = 500;
  /** Live events held while catching up; past this they are dropped and read back from the database. */
  static final int MAX_HELD = 500;

  private final Vertx vertx;
  private final HttpServerResponse response;
  private final EventStore store;
  private final SseScope scope;
  private final long keepaliveMs;
  private final SseFanout fanout;
  private boolean subscribed;
  /** Live events that arrived while catching up; null once the stream is live. */
  private List<LoggedEvent> held = new ArrayList<>();
  private boolean heldDropped;
  private long lastSent;
  private long keepaliveTimer = -1;
  private long stallTimer = -1;
  private boolean closed;
  /** Written right after the stream opens, before any event (a reset notice). */
  private Buffer preamble;
  /** A finished source: end once the stored events are sent, instead of going live. */
  private boolean endAfterReplay;

  SseSession(Vertx vertx, HttpServerResponse response, EventStore store, SseScope scope, long keepaliveMs,
      SseFanout fanout) {
    this.vertx = vertx;
    this.response = response;
    this.store = store;
    this.scope = scope;
    this.keepaliveMs = keepaliveMs;
    this.fanout = fanout;
  }

  SseScope scope() {
    return scope;
  }

  /** A frame to send first, once the stream is open. */
  SseSession startWith(Buffer frame) {
    this.preamble = frame;
    return this;
  }

  /** End the stream after the replay (the source is finished; nothing more will be published on it). */
  SseSession endAfterReplay() {
    this.endAfterReplay = true;
    return this;
  }

  /**
   * Subscribes, fixes where the stream starts (the id {@code startAfter} yields), then sends the 200
   * and a first comment: an event stored after the client sees the stream open is always delivered.
   * The future fails only before the response has begun, so the caller can still answer with an error.
   */
  Future<Void> open(Supplier<Future<Long>> startAfter) {
    if (response.closed()) {
      return Future.succeededFuture(); // the client left while the request was checked
    }
    response.closeHandler(v -> release());
    fanout.add(this);
    subscribed = true;
    return startAfter.get()
        .onFailure(err -> release())
        .map(after -> {
          lastSent = after;
          if (!closed) {
            begin();
            catchUp().onFailure(this::failed);
          }
          return null;
        });
  }

  private void begin() {
    response.setStatusCode(200).setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Accel-Buffering", "no")
        .putHeader("Content-Encoding", "identity"); // no compression: it would hold frames back
    response.write(SseFrame.CONNECTED);
    if (preamble != null) {
      response.write(preamble);
    }
    keepaliveTimer = vertx.setPeriodic(keepaliveMs, id -> keepalive());
  }

  /** Reads the stored events after the last one sent, a page at a time, until a short page. */
  private Future<Void> catchUp() {
    heldDropped = false; // what was dropped before this query is stored, so the query returns it
    return scope.page(store, lastSent, PAGE)
        .compose(page -> writeAll(page, 0)
            .compose(v -> closed ? done() : page.size() == PAGE ? catchUp() : sendHeld()));
  }

  /** Sends the live events held meanwhile; once none are left the stream is live. */
  private Future<Void> sendHeld() {
    if (heldDropped) {
      return catchUp();
    }
    if (held.isEmpty()) {
      held = null;
      if (endAfterReplay && !closed) {
        release();
        response.end();
      }
      return done();
    }
    List<LoggedEvent> batch = held;
    held = new ArrayList<>();
    return writeAll(batch, 0).compose(v -> closed ? done() : sendHeld());
  }

  /** Writes a backlog, waiting for the client to drain whenever its write queue fills. */
  private Future<Void> writeAll(List<LoggedEvent> events, int from) {
    for (int i = from; i < events.size() && !closed; i++) {
      if (response.writeQueueFull()) {
        int next = i;
        return drained().compose(v -> writeAll(events, next));
      }
      send(events.get(i));
    }
    return done();
  }

  /** Completes when the client has read its queue down; one that stalls for two keepalive periods is dropped. */
  private Future<Void> drained() {
    Promise<Void> drained = Promise.promise();
    stallTimer = vertx.setTimer(2 * keepaliveMs, id -> abort("stalled while catching up"));
    response.drainHandler(v -> {
      vertx.cancelTimer(stallTimer);
      response.drainHandler(null);
      drained.tryComplete();
    });
    return drained.future();
  }

  /**
   * The events of one write (of this stream's scope), as they are committed: held while catching up,
   * else those after the last one sent go out in one write, up to a terminal status that ends the stream.
   */
  void live(SseFanout.Batch batch) {
    if (closed) {
      return;
    }
    if (held != null) {
      for (int i = 0; i < batch.size(); i++) {
        hold(batch.event(i));
      }
      return;
    }
    int from = 0;
    while (from < batch.size() && batch.id(from) <= lastSent) {
      from++;
    }
    if (from == batch.size()) {
      return;
    }
    if (response.writeQueueFull()) {
      abort("too slow to read the live events");
      return;
    }
    int to = from;
    boolean ends = false;
    while (to < batch.size() && !ends) {
      ends = scope.endsWith(batch.event(to++));
    }
    response.write(batch.frames(from, to));
    lastSent = batch.id(to - 1);
    if (ends) {
      release();
      response.end();
    }
  }

  private void hold(LoggedEvent event) {
    if (held.size() < MAX_HELD) {
      held.add(event);
    } else {
      held.clear();
      heldDropped = true;
    }
  }

  private void send(LoggedEvent event) {
    long id = event.id();
    if (id <= lastSent) {
      return;
    }
    response.write(SseFrame.event(event));
    lastSent = id;
    if (scope.endsWith(event)) {
      release();
      response.end();
    }
  }

  private void keepalive() {
    if (closed) {
      return;
    }
    if (!response.writeQueueFull()) {
      response.write(SseFrame.KEEPALIVE);
    } else if (held == null) {
      abort("too slow to read the keepalive");
    } // while catching up a full queue is normal: the stall timer watches it
  }

  /** Drops the connection; the client reconnects with Last-Event-ID and catches up from the database. */
  void abort(String reason) {
    if (closed) {
      return;
    }
    LOG.debug("Closing event stream {}: {}", scope.address(), reason);
    release();
    response.reset();
  }

  private void failed(Throwable err) {
    if (closed) {
      return; // the client left or the server is stopping: nothing to report
    }
    LOG.warn("Event stream {} failed: {}", scope.address(), err.toString());
    abort("failed");
  }

  /** Unsubscribes and stops the timers; called once, when the stream ends, is dropped or its connection closes. */
  private void release() {
    if (closed) {
      return;
    }
    closed = true;
    vertx.cancelTimer(keepaliveTimer);
    vertx.cancelTimer(stallTimer);
    if (subscribed) {
      fanout.remove(this);
    }
  }

  private static Future<Void> done() {
    return Future.succeededFuture();
  }
}
