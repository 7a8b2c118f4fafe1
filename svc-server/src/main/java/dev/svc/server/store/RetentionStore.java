package dev.svc.server.store;

import dev.svc.core.events.EventType;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

/**
 * The deletes of the housekeeping, each a single statement over at most one batch of rows, so that
 * SQLite's one writer is never held for long and other queries run between batches. Cutoffs are
 * ISO-8601 timestamps (they sort as text).
 */
public final class RetentionStore {

  private static final String FIRST_EVENT_FROM = "SELECT id FROM events WHERE created_at >= ? ORDER BY id LIMIT 1";
  private static final String LAST_EVENT = "SELECT MAX(id) FROM events";
  /** Log lines are events too, but they have a retention of their own (below). */
  private static final String NOT_LOG = " AND type <> '" + EventType.LOG + "'";
  private static final String EVENTS_BATCH_END = "SELECT MAX(id) FROM (SELECT id FROM events WHERE id > ? AND id < ?"
      + NOT_LOG + " ORDER BY id LIMIT ?) batch";
  private static final String EVENTS_BETWEEN = "DELETE FROM events WHERE id > ? AND id <= ?" + NOT_LOG;
  private static final String TEST_LOGS = "DELETE FROM events WHERE id IN (SELECT e.id FROM quick_tests t"
      + " JOIN events e ON e.source_id = t.id AND e.type = '" + EventType.LOG + "' WHERE t.status IN ('completed', 'failed')"
      + " AND COALESCE(t.completed_at, t.updated_at, t.created_at) < ? LIMIT ?)";
  private static final String CAMPAIGN_LOGS = "DELETE FROM events WHERE id IN (SELECT e.id FROM campaigns c"
      + " JOIN events e ON e.source_id = c.id AND e.type = '" + EventType.LOG + "'"
      + " WHERE c.status IN ('completed', 'failed', 'cancelled') AND COALESCE(c.completed_at, c.created_at) < ? LIMIT ?)";
  private static final String COMMANDS = "DELETE FROM commands WHERE id IN (SELECT id FROM commands"
      + " WHERE acked_at IS NOT NULL AND acked_at < ? LIMIT ?)";

  private final Pool pool;

  public RetentionStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * The id before which every event is older than the cutoff: the first event stored at or after it.
   * Events are written one transaction at a time with the time of writing, so what goes is always a
   * prefix of the log (less the log lines, kept by their own retention) and a replay from any id still sees every kept event after it. The newest event is always
   * kept, so that ids keep growing from where they were.
   */
  public Future<Long> eventsKeptFrom(String cutoff) {
    return Sql.row(pool, FIRST_EVENT_FROM, Tuple.of(cutoff), StoredEvent.class).compose(first -> first.isPresent()
        ? Future.succeededFuture(first.get().id())
        : Sql.count(pool, LAST_EVENT, Tuple.tuple()));
  }

  /** What one batch of {@link #deleteEventsBefore} did: how many it deleted, and the id to go on after. */
  public record EventBatch(int deleted, long last) {
  }

  /**
   * Deletes up to {@code limit} events (not log lines) with ids between {@code after} and
   * {@code keptFrom}; the next batch goes on after {@link EventBatch#last}, so that the log lines
   * kept among old events are read once per run, not once per batch.
   */
  public Future<EventBatch> deleteEventsBefore(long after, long keptFrom, int limit) {
    return Sql.count(pool, EVENTS_BATCH_END, Tuple.of(after, keptFrom, limit)).compose(last -> last <= after
        ? Future.succeededFuture(new EventBatch(0, after))
        : Sql.update(pool, EVENTS_BETWEEN, Tuple.of(after, last)).map(n -> new EventBatch(n, last)));
  }

  /** Deletes up to {@code limit} log lines (log events) of quick tests that finished before the cutoff. */
  public Future<Integer> deleteTestLogs(String finishedBefore, int limit) {
    return Sql.update(pool, TEST_LOGS, Tuple.of(finishedBefore, limit));
  }

  /** Deletes up to {@code limit} log lines (log events) of campaigns that finished (or were cancelled) before the cutoff. */
  public Future<Integer> deleteCampaignLogs(String finishedBefore, int limit) {
    return Sql.update(pool, CAMPAIGN_LOGS, Tuple.of(finishedBefore, limit));
  }

  /** Deletes up to {@code limit} commands the agent acknowledged before the cutoff (pending ones stay). */
  public Future<Integer> deleteCommands(String ackedBefore, int limit) {
    return Sql.update(pool, COMMANDS, Tuple.of(ackedBefore, limit));
  }
}
