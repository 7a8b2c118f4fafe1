package dev.svc.server.store;

import dev.svc.core.Timestamps;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Cluster-wide leases in the shared database: a named role (a singleton's) held by one node until
 * it expires. Taking and renewing are one statement each, so two nodes racing for a lease cannot both
 * get it; a node that dies stops renewing, and another takes the lease once it has expired. Expiry
 * is read off each node's clock: nodes keep their clocks in step (NTP), within a small part of the
 * lease's length.
 */
public final class LeaseStore {

  /** Takes the lease when it is free, expired, or already this holder's; the row count says whether it did. */
  private static final String HOLD = "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)"
      + " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at"
      + " WHERE leases.holder = excluded.holder OR leases.expires_at < ?";
  private static final String RELEASE = "DELETE FROM leases WHERE name = ? AND holder = ?";
  private static final String READ = "SELECT name, holder, expires_at FROM leases WHERE name = ?";

  /** A lease as stored. */
  public record Lease(String name, String holder, String expiresAt) {
  }

  private final Pool pool;

  public LeaseStore(Pool pool) {
    this.pool = pool;
  }

  /** Takes or renews the lease for {@code ttl} from now; false when another holder has it and it has not expired. */
  public Future<Boolean> hold(String name, String holder, Duration ttl) {
    Instant now = Instant.now();
    return Sql.update(pool, HOLD, Tuple.of(name, holder, Timestamps.format(now.plus(ttl)), Timestamps.format(now)))
        .map(rows -> rows == 1);
  }

  /** Gives the lease up at once (another node need not wait for it to expire); nothing when this holder has it not. */
  public Future<Void> release(String name, String holder) {
    return Sql.update(pool, RELEASE, Tuple.of(name, holder)).mapEmpty();
  }

  /** The lease as stored, expired or not; empty when nobody has held it since it was last released. */
  public Future<Optional<Lease>> read(String name) {
    return Sql.row(pool, READ, Tuple.of(name), Lease.class);
  }
}
