package dev.svc.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.VertxException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.io.IOException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** The one mapping of storage failures to what clients are told; anything else is left to the 500. */
class StorageFaultTest {

  @Test
  void busyLockedUnreachableAndFullAreTemporaryWithRetryAfter() {
    assertThat(status(new SQLiteException("locked", SQLiteErrorCode.SQLITE_BUSY))).contains(503);
    assertThat(status(new SQLiteException("snapshot", SQLiteErrorCode.SQLITE_BUSY_SNAPSHOT))).contains(503);
    assertThat(status(new SQLiteException("table locked", SQLiteErrorCode.SQLITE_LOCKED))).contains(503);
    assertThat(status(new SQLiteException("full", SQLiteErrorCode.SQLITE_FULL))).contains(507);
    assertThat(status(new SQLiteException("write", SQLiteErrorCode.SQLITE_IOERR_WRITE))).contains(503);
    assertThat(status(new SQLException("I/O error while sending to the backend", "08006"))).contains(503);
    assertThat(status(new SQLException("refused", "08001", new ConnectException("Connection refused")))).contains(503);
    assertThat(status(new SQLException("terminating connection due to administrator command", "57P01"))).contains(503);
    assertThat(status(new SQLException("could not extend file: No space left on device", "53100"))).contains(507);
    assertThat(status(new SQLException("deadlock detected", "40P01"))).contains(503);
    assertThat(status(new VertxException("Timeout waiting for connection"))).contains(503);
    assertThat(status(new IOException("No space left on device"))).contains(507);
    // found however deep the cause sits
    assertThat(status(new RuntimeException(new VertxException(new SQLiteException("locked", SQLiteErrorCode.SQLITE_BUSY)))))
        .contains(503);
    // the heartbeat verticle's answer over the event bus keeps its status
    assertThat(status(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 507, "disk full"))).contains(507);

    StorageFault full = StorageFault.of(new SQLiteException("full", SQLiteErrorCode.SQLITE_FULL)).orElseThrow();
    assertThat(full.retryAfterS()).isPositive();
    assertThat(full.message()).contains("disk is full");
  }

  @Test
  void requestMistakesAndRealFaultsAreNotStorageFaults() {
    assertThat(status(new SQLiteException("unique", SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE))).isEmpty();
    assertThat(status(new SQLiteException("corrupt", SQLiteErrorCode.SQLITE_CORRUPT))).isEmpty();
    assertThat(status(new SQLException("duplicate key", "23505"))).isEmpty();
    assertThat(status(new SQLException("syntax error", "42601"))).isEmpty();
    assertThat(status(new ConnectException("catalog host refused"))).isEmpty(); // not the database
    assertThat(status(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 500, "bug"))).isEmpty();
    assertThat(status(new IllegalStateException("bug"))).isEmpty();
  }

  private static Optional<Integer> status(Throwable failure) {
    return StorageFault.of(failure).map(StorageFault::status);
  }
}
