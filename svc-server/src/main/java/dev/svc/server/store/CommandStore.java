package dev.svc.server.store;

import dev.svc.core.Timestamps;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/** Commands other than run_test (cleanup_storage, cancel_test) waiting for an agent's next heartbeat. */
public final class CommandStore {

  private static final String INSERT = "INSERT INTO commands (id, agent_id, type, test_id, payload, created_at)"
      + " VALUES (?,?,?,?,?,?)";
  private static final String PENDING = "SELECT id, type, test_id, payload FROM commands WHERE agent_id = ?"
      + " AND delivered_at IS NULL ORDER BY created_at, id";
  private static final String DELIVERED = "UPDATE commands SET delivered_at = ? WHERE id = ?";

  private final Pool pool;

  public CommandStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> enqueue(String id, String agentId, String type, String testId, JsonObject payload) {
    return Sql.update(pool, INSERT, Tuple.of(id, agentId, type, testId, payload.encode(), Timestamps.now())).mapEmpty();
  }

  /** Takes the pending commands of an agent and marks them delivered, in one transaction. */
  public Future<List<JsonObject>> take(String agentId) {
    return pool.withTransaction(conn -> Sql.rows(conn, PENDING, Tuple.of(agentId)).compose(rows -> {
      String now = Timestamps.now();
      Future<Void> chain = Future.succeededFuture();
      for (JsonObject row : rows) {
        chain = chain.compose(v -> Sql.update(conn, DELIVERED, Tuple.of(now, row.getString("id"))).mapEmpty());
      }
      return chain.map(v -> rows);
    }));
  }
}
