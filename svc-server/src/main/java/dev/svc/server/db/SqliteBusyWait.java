package dev.svc.server.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import org.sqlite.BusyHandler;

/**
 * How long a statement waits for a lock another connection holds on the SQLite file (a backup, the
 * sqlite3 shell, a second process). The first wait is patient ({@link #PATIENCE_MS}, what outside
 * tools' short transactions need); once a wait has given up, the lock is known to be held, and the
 * waits that follow within {@link #RECENT_MS} give up after {@link #WHILE_LOCKED_MS}. The server has
 * one SQLite connection: without this, every write queued behind a held lock would wait its own 5 s
 * in turn, and the reads queued behind them with it (four writes kept a read waiting 20 s); with it a
 * held lock costs the requests behind the first one a tenth of a second each, and they are answered
 * 503 with Retry-After ({@link StorageFault}). The first write after the lock is gone succeeds.
 */
final class SqliteBusyWait extends BusyHandler {

  static final long PATIENCE_MS = 5_000;
  static final long WHILE_LOCKED_MS = 100;
  static final long RECENT_MS = 10_000;

  /** When a wait of the file's connections last gave up (System.nanoTime), shared by them. */
  private final AtomicLong lastGaveUp;
  private long waitStarted;

  private SqliteBusyWait(AtomicLong lastGaveUp) {
    this.lastGaveUp = lastGaveUp;
  }

  /** Installs the wait on a new connection to the file whose connections share {@code lastGaveUp}. */
  static void install(Connection connection, AtomicLong lastGaveUp) throws SQLException {
    BusyHandler.setHandler(connection, new SqliteBusyWait(lastGaveUp));
  }

  /** A new shared state: no wait has given up yet. */
  static AtomicLong neverGaveUp() {
    return new AtomicLong(System.nanoTime() - RECENT_MS * 2_000_000);
  }

  @Override
  protected int callback(int previousCalls) {
    long now = System.nanoTime();
    if (previousCalls == 0) {
      waitStarted = now;
    }
    boolean lockedLately = now - lastGaveUp.get() < RECENT_MS * 1_000_000;
    long patienceNs = (lockedLately ? WHILE_LOCKED_MS : PATIENCE_MS) * 1_000_000;
    long waitedNs = now - waitStarted;
    if (waitedNs >= patienceNs) {
      lastGaveUp.set(now);
      return 0; // SQLITE_BUSY to the statement
    }
    // short naps first (most outside transactions are milliseconds long), then at most 50 ms
    long napMs = Math.min(Math.min(50, 1L << Math.min(previousCalls, 6)), Math.max(1, (patienceNs - waitedNs) / 1_000_000));
    try {
      Thread.sleep(napMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
    return 1;
  }
}
