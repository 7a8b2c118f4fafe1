package dev.svc.server.http;

import dev.svc.core.events.LoggedEvent;
import dev.svc.core.events.EventAddresses;
import dev.svc.server.store.EventStore;
import io.vertx.core.Future;
import java.util.List;
import java.util.Set;

/** Which events a stream carries (all, or one source's): where they are published, stored and when they end. */
record SseScope(String address, String sourceId) {

  /** A test's completed/failed, a campaign's completed/failed/cancelled: nothing follows on that source. */
  private static final Set<String> TERMINAL = Set.of("completed", "failed", "cancelled");

  static SseScope all() {
    return new SseScope(EventAddresses.ALL, null);
  }

  static SseScope source(String sourceId) {
    return new SseScope(EventAddresses.forSource(sourceId), sourceId);
  }

  /** The stored events after {@code id}, oldest first. */
  Future<List<LoggedEvent>> page(EventStore store, long id, int limit) {
    return sourceId == null ? store.after(id, limit) : store.afterForSource(sourceId, id, limit);
  }

  /** Whether the stream ends after this event: a per-source stream's terminal status (agents have none). */
  boolean endsWith(LoggedEvent event) {
    return sourceId != null && isTerminalStatus(event);
  }

  static boolean isTerminalStatus(LoggedEvent event) {
    return isTerminal(event.status());
  }

  /** Whether a test's or campaign's status is final. */
  static boolean isTerminal(String status) {
    return status != null && TERMINAL.contains(status);
  }
}
