package dev.svc.server.store;

import dev.svc.core.Timestamps;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Claims in the shared database: a named role (running the singletons of a clustered deployment)
 * held by one node until the claim expires. Taking and renewing are one statement each, so two
 * nodes racing for a claim cannot both get it; a node that dies stops renewing, and another takes
 * the claim once it has expired. Expiry is read off each node's clock: nodes keep their clocks in
 * step (NTP), within a small part of the claim's length. (Not a test's lease, which is how long a
 * dispatched test may go unheard.)
 */
public final class ClaimStore {

  /** Takes the claim when it is free, expired, or already this holder's; the row count says whether it did. */
  private static final String HOLD = "INSERT INTO claims (name, holder, expires_at) VALUES (?, ?, ?)"
      + " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at"
      + " WHERE claims.holder = excluded.holder OR claims.expires_at < ?";
  private static final String RELEASE = "DELETE FROM claims WHERE name = ? AND holder = ?";
  private static final String READ = "SELECT name, holder, expires_at FROM claims WHERE name = ?";

  /** A claim as stored. */
  public record Claim(String name, String holder, String expiresAt) {
  }

  private final Pool pool;

  public ClaimStore(Pool pool) {
    this.pool = pool;
  }

  /** Takes or renews the claim for {@code ttl} from now; false when another holder has it and it has not expired. */
  public Future<Boolean> hold(String name, String holder, Duration ttl) {
    Instant now = Instant.now();
    return Sql.update(pool, HOLD, Tuple.of(name, holder, Timestamps.format(now.plus(ttl)), Timestamps.format(now)))
        .map(rows -> rows == 1);
  }

  /** Gives the claim up at once (another node need not wait for it to expire); nothing when this holder has it not. */
  public Future<Void> release(String name, String holder) {
    return Sql.update(pool, RELEASE, Tuple.of(name, holder)).mapEmpty();
  }

  /** The claim as stored, expired or not; empty when nobody has held it since it was last released. */
  public Future<Optional<Claim>> read(String name) {
    return Sql.row(pool, READ, Tuple.of(name), Claim.class);
  }
}
