package dev.svc.server.store;

import dev.svc.core.Timestamps;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.LinkedHashMap;
import java.util.Map;

/** Global key-value settings stored in the database (they win over the environment and defaults). */
public final class SettingsStore {

  private static final String ALL = "SELECT key, value FROM settings";
  private static final String DELETE = "DELETE FROM settings WHERE key = ?";
  private static final String INSERT = "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)";

  private final Pool pool;

  public SettingsStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Map<String, String>> all() {
    return Sql.rows(pool, ALL, Tuple.tuple(), StoredSetting.class).map(rows -> {
      Map<String, String> out = new LinkedHashMap<>();
      rows.forEach(r -> out.put(r.key(), r.value()));
      return out;
    });
  }

  /** Stores each value; a null value clears the key. */
  public Future<Void> put(Map<String, String> values) {
    return pool.withTransaction(conn -> {
      Future<Void> chain = Future.succeededFuture();
      String now = Timestamps.now();
      for (Map.Entry<String, String> e : values.entrySet()) {
        chain = chain.compose(v -> Sql.update(conn, DELETE, Tuple.of(e.getKey())).mapEmpty());
        if (e.getValue() != null) {
          chain = chain.compose(v -> Sql.update(conn, INSERT, Tuple.of(e.getKey(), e.getValue(), now)).mapEmpty());
        }
      }
      return chain;
    });
  }
}
