package dev.svc.server.http;

import dev.svc.core.events.LoggedEvent;
import dev.svc.server.events.EventLog;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live events of the streams open on one event loop (one HTTP verticle instance): one listener on
 * the event log for all of them, rather than a bus consumer each. Each frame is encoded once per loop
 * and the frames of one write (a log batch) reach a stream as one buffer: one write and one flush per
 * subscriber and batch. A Buffer may be written to many responses (each write takes its own slice).
 * Everything runs on that event loop.
 */
final class SseFanout {

  private static final Logger LOG = LoggerFactory.getLogger(SseFanout.class);

  private final EventLog log;
  private final Set<SseSession> all = new LinkedHashSet<>();
  private final Map<String, Set<SseSession>> bySource = new HashMap<>();
  private Context context;
  /** The event loop the fan-out serves: that of its first stream. */
  private Thread loop;
  /** Stops the event log's listener; null while no stream is open. */
  private Runnable stop;
  /** Told +1 when a stream opens here and -1 when it ends (the metrics count the node's open streams). */
  private final IntConsumer opened;

  SseFanout(EventLog log, IntConsumer opened) {
    this.log = log;
    this.opened = opened;
  }

  /**
   * Adds an open stream: it gets every event committed from now on; those it does not get were
   * committed before, so its replay from the database, begun after this, finds them.
   */
  void add(SseSession session) {
    // a request runs on a duplicate of its verticle's context; any duplicate runs on the same loop
    if (context == null) {
      context = Vertx.currentContext();
      loop = Thread.currentThread();
    } else if (loop != Thread.currentThread()) {
      throw new IllegalStateException("An event stream fan-out serves one event loop");
    }
    String source = session.scope().sourceId();
    if ((source == null ? all : bySource.computeIfAbsent(source, k -> new LinkedHashSet<>())).add(session)) {
      opened.accept(1);
    }
    if (stop == null) {
      stop = log.listen(context, this::deliver);
    }
  }

  /** Removes a stream that ended; the listener goes with the last one. */
  void remove(SseSession session) {
    String source = session.scope().sourceId();
    boolean removed;
    if (source == null) {
      removed = all.remove(session);
    } else {
      Set<SseSession> sessions = bySource.get(source);
      removed = sessions != null && sessions.remove(session);
      if (removed && sessions.isEmpty()) {
        bySource.remove(source);
      }
    }
    if (removed) {
      opened.accept(-1);
    }
    if (stop != null && all.isEmpty() && bySource.isEmpty()) {
      stop.run();
      stop = null;
    }
  }

  /** Open streams, for tests. */
  int size() {
    return all.size() + bySource.values().stream().mapToInt(Set::size).sum();
  }

  /** The events of one committed write, in id order. */
  private void deliver(List<LoggedEvent> events) {
    Map<LoggedEvent, Buffer> frames = new IdentityHashMap<>();
    if (!all.isEmpty()) {
      fanOut(all, new Batch(events, frames));
    }
    if (bySource.isEmpty()) {
      return;
    }
    Map<String, List<LoggedEvent>> grouped = new LinkedHashMap<>();
    for (LoggedEvent event : events) {
      String source = event.sourceId();
      if (bySource.containsKey(source)) {
        grouped.computeIfAbsent(source, k -> new ArrayList<>()).add(event);
      }
    }
    grouped.forEach((source, ofSource) -> {
      Set<SseSession> sessions = bySource.get(source);
      if (sessions != null) {
        fanOut(sessions, new Batch(ofSource, frames));
      }
    });
  }

  private static void fanOut(Set<SseSession> sessions, Batch batch) {
    // a copy: a stream that ends on this batch leaves the set meanwhile
    for (SseSession session : sessions.toArray(new SseSession[0])) {
      try {
        session.live(batch);
      } catch (RuntimeException e) { // one broken stream must not keep the batch from the others
        LOG.warn("Event stream failed on a live event: {}", e.toString());
        session.abort("failed on a live event");
      }
    }
  }

  /** Some events of one write (all of them, or one source's), each framed once, shared by the streams. */
  static final class Batch {
    private final List<LoggedEvent> events;
    private final Map<LoggedEvent, Buffer> frames;
    private Buffer joined;

    Batch(List<LoggedEvent> events, Map<LoggedEvent, Buffer> frames) {
      this.events = events;
      this.frames = frames;
    }

    int size() {
      return events.size();
    }

    LoggedEvent event(int i) {
      return events.get(i);
    }

    long id(int i) {
      return events.get(i).id();
    }

    /** The frames of events {@code from} (inclusive) to {@code to} (exclusive) as one buffer. */
    Buffer frames(int from, int to) {
      boolean whole = from == 0 && to == events.size();
      if (whole && joined != null) {
        return joined;
      }
      Buffer out;
      if (to - from == 1) {
        out = frame(events.get(from));
      } else {
        out = Buffer.buffer();
        for (int i = from; i < to; i++) {
          out.appendBuffer(frame(events.get(i)));
        }
      }
      if (whole) {
        joined = out;
      }
      return out;
    }

    private Buffer frame(LoggedEvent event) {
      return frames.computeIfAbsent(event, SseFrame::event);
    }
  }
}
