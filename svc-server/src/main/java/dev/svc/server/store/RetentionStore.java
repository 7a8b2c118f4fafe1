package dev.svc.server.store;

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
  private static final String EVENTS_BEFORE = "DELETE FROM events WHERE id IN"
      + " (SELECT id FROM events WHERE id < ? ORDER BY id LIMIT ?)";
  private static final String TEST_LOGS = "DELETE FROM quick_test_logs WHERE id IN (SELECT l.id FROM quick_test_logs l"
      + " JOIN quick_tests t ON t.id = l.test_id WHERE t.status IN ('completed', 'failed')"
      + " AND COALESCE(t.completed_at, t.updated_at, t.created_at) < ? LIMIT ?)";
  private static final String CAMPAIGN_LOGS = "DELETE FROM campaign_logs WHERE id IN (SELECT l.id FROM campaign_logs l"
      + " JOIN campaigns c ON c.id = l.campaign_id WHERE c.status IN ('completed', 'failed', 'cancelled')"
      + " AND COALESCE(c.completed_at, c.created_at) < ? LIMIT ?)";
  private static final String COMMANDS = "DELETE FROM commands WHERE id IN (SELECT id FROM commands"
      + " WHERE acked_at IS NOT NULL AND acked_at < ? LIMIT ?)";

  private final Pool pool;

  public RetentionStore(Pool pool) {
    this.pool = pool;
  }

  /**
   * The id before which every event is older than the cutoff: the first event stored at or after it.
   * Events are written one at a time with the time of writing, so what goes is always a prefix of the
   * log and a replay from any id still sees every kept event after it. The newest event is always
   * kept, so that ids keep growing from where they were.
   */
  public Future<Long> eventsKeptFrom(String cutoff) {
    return Sql.rows(pool, FIRST_EVENT_FROM, Tuple.of(cutoff)).compose(rows -> !rows.isEmpty()
        ? Future.succeededFuture(rows.get(0).getLong("id"))
        : Sql.count(pool, LAST_EVENT, Tuple.tuple()));
  }

  /** Deletes up to {@code limit} events with ids below {@code keptFrom}; how many it deleted. */
  public Future<Integer> deleteEventsBefore(long keptFrom, int limit) {
    return Sql.update(pool, EVENTS_BEFORE, Tuple.of(keptFrom, limit));
  }

  /** Deletes up to {@code limit} log lines of quick tests that finished before the cutoff. */
  public Future<Integer> deleteTestLogs(String finishedBefore, int limit) {
    return Sql.update(pool, TEST_LOGS, Tuple.of(finishedBefore, limit));
  }

  /** Deletes up to {@code limit} log lines of campaigns that finished (or were cancelled) before the cutoff. */
  public Future<Integer> deleteCampaignLogs(String finishedBefore, int limit) {
    return Sql.update(pool, CAMPAIGN_LOGS, Tuple.of(finishedBefore, limit));
  }

  /** Deletes up to {@code limit} commands the agent acknowledged before the cutoff (pending ones stay). */
  public Future<Integer> deleteCommands(String ackedBefore, int limit) {
    return Sql.update(pool, COMMANDS, Tuple.of(ackedBefore, limit));
  }
}
