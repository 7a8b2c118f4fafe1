package dev.svc.server.db;

import io.vertx.core.VertxException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * What a client is told when the server could not store or read something for a reason of the
 * server's storage, not of the request: the database busy (SQLite locked by another process, a
 * PostgreSQL lock or serialization conflict, every pooled connection taken for too long), the
 * database unreachable (PostgreSQL stopped or restarting, a connection dropped: the driver's SQLState
 * 08xxx, also for a refused connection), or the disk full.
 * All are temporary for the client, so they are answered 503 (busy, unreachable) or 507 (disk full),
 * each with {@code Retry-After}; a client retries the same request then. The one place that maps
 * such failures ({@link #of}); everything else stays a 500 with a correlation id.
 *
 * @param status the HTTP status: 503 or 507
 * @param retryAfterS the seconds a client should wait before retrying
 * @param message the sentence the client gets as {@code {"error": message}}
 */
public record StorageFault(int status, long retryAfterS, String message) {

  public static final int UNAVAILABLE = 503;
  public static final int INSUFFICIENT_STORAGE = 507;

  /** The database is locked or contended: worth a retry in a few seconds. */
  static final StorageFault BUSY = new StorageFault(UNAVAILABLE, 5,
      "The database is busy (locked by another process or overloaded); the request was not applied. Retry in 5 s.");
  /** The database cannot be reached: a restart of PostgreSQL takes some seconds. */
  static final StorageFault UNREACHABLE = new StorageFault(UNAVAILABLE, 10,
      "The database is unavailable; the request may not have been applied. Retry in 10 s.");
  /** The server's disk is full: someone has to free space, so retries are spaced out. */
  static final StorageFault DISK_FULL = new StorageFault(INSUFFICIENT_STORAGE, 60,
      "The server's disk is full; nothing was stored. Retry once space has been freed on the server.");
  /** Reading or writing the database file failed (an I/O error other than a full disk). */
  static final StorageFault IO_ERROR = new StorageFault(UNAVAILABLE, 10,
      "The server's storage failed to read or write (an I/O error); the request was not applied. Retry in 10 s.");

  private static final String NO_SPACE = "No space left on device";

  /** The storage fault behind {@code failure} (anywhere in its causes), or empty for any other failure. */
  public static Optional<StorageFault> of(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
      Optional<StorageFault> fault = direct(t);
      if (fault.isPresent()) {
        return fault;
      }
    }
    return Optional.empty();
  }

  private static Optional<StorageFault> direct(Throwable t) {
    if (t instanceof SQLiteException e) {
      return sqlite(e.getResultCode());
    }
    if (t instanceof SQLException e && e.getSQLState() != null) {
      return sqlState(e.getSQLState());
    }
    if (t instanceof ReplyException e) {
      // a verticle answered over the event bus with the status of the fault it met (HeartbeatDispatcher)
      if (e.failureType() == ReplyFailure.RECIPIENT_FAILURE
          && (e.failureCode() == UNAVAILABLE || e.failureCode() == INSUFFICIENT_STORAGE)) {
        StorageFault like = e.failureCode() == INSUFFICIENT_STORAGE ? DISK_FULL : BUSY;
        return Optional.of(new StorageFault(e.failureCode(), like.retryAfterS(), e.getMessage()));
      }
      return Optional.empty();
    }
    if (t instanceof FileSystemException e && NO_SPACE.equals(e.getReason())) {
      return Optional.of(DISK_FULL);
    }
    if (t instanceof IOException e && e.getMessage() != null && e.getMessage().contains(NO_SPACE)) {
      return Optional.of(DISK_FULL);
    }
    if (t instanceof VertxException && "Timeout waiting for connection".equals(t.getMessage())) {
      return Optional.of(BUSY); // every pooled connection stayed taken for the pool's whole wait
    }
    return Optional.empty();
  }

  private static Optional<StorageFault> sqlite(SQLiteErrorCode code) {
    if (code == null) {
      return Optional.empty();
    }
    // extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE…) carry their primary code in the low byte
    switch (code.code & 0xff) {
      case 5: // SQLITE_BUSY
      case 6: // SQLITE_LOCKED
        return Optional.of(BUSY);
      case 13: // SQLITE_FULL
        return Optional.of(DISK_FULL);
      case 10: // SQLITE_IOERR
      case 14: // SQLITE_CANTOPEN
        return Optional.of(IO_ERROR);
      default:
        return Optional.empty();
    }
  }

  private static Optional<StorageFault> sqlState(String state) {
    if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
      return Optional.of(UNREACHABLE); // connection exceptions; admin/crash shutdown; cannot connect now
    }
    if (state.equals("53100")) {
      return Optional.of(DISK_FULL);
    }
    if (state.equals("53300") || state.equals("40001") || state.equals("40P01") || state.equals("55P03")) {
      return Optional.of(BUSY); // too many connections, serialization failure, deadlock, lock not available
    }
    return Optional.empty();
  }
}
