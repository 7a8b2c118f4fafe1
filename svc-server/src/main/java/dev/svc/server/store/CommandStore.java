package dev.svc.server.store;

import dev.svc.core.protocol.HeartbeatAnswer.Command;
import dev.svc.core.Timestamps;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.Collection;
import java.util.List;

/**
 * Commands other than run_test (cleanup_storage, cancel_test) for an agent: sent in every heartbeat
 * reply until the agent acknowledges them, so a lost reply loses no command. An agent that names the
 * commands it received ({@code acked_command_ids}) acknowledges exactly those; an older agent, which
 * sends no such field, acknowledges what it was sent by its next heartbeat.
 */
public final class CommandStore {

  private static final String INSERT = "INSERT INTO commands (id, agent_id, type, test_id, payload, created_at)"
      + " VALUES (?,?,?,?,?,?)";
  private static final String PENDING = "SELECT id, type, test_id, payload FROM commands WHERE agent_id = ?"
      + " AND acked_at IS NULL ORDER BY created_at, id";
  private static final String DELIVERED = "UPDATE commands SET delivered_at = ?, deliveries = deliveries + 1"
      + " WHERE id = ?";
  private static final String ACK = "UPDATE commands SET acked_at = ? WHERE agent_id = ? AND id = ? AND acked_at IS NULL";
  private static final String ACK_DELIVERED = "UPDATE commands SET acked_at = ? WHERE agent_id = ?"
      + " AND acked_at IS NULL AND delivered_at IS NOT NULL";
  private static final String ACK_ALL = "UPDATE commands SET acked_at = ? WHERE agent_id = ? AND acked_at IS NULL";

  private final Pool pool;
  private final LiveFleet fleet;

  /** A command stored here (outside a caller's transaction) is announced to {@code fleet} once committed. */
  public CommandStore(Pool pool, LiveFleet fleet) {
    this.pool = pool;
    this.fleet = fleet;
  }

  /** Stores a command in the caller's transaction; the caller tells {@link LiveFleet#commandQueued} once committed. */
  public Future<Void> enqueue(SqlClient client, String id, String agentId, String type, String testId,
      JsonObject payload) {
    return Sql.update(client, INSERT, Tuple.of(id, agentId, type, testId, payload.encode(), Timestamps.now()))
        .mapEmpty();
  }

  public Future<Void> enqueue(String id, String agentId, String type, String testId, JsonObject payload) {
    return enqueue(pool, id, agentId, type, testId, payload).onSuccess(v -> fleet.commands().mark(agentId));
  }

  /**
   * Records the acknowledgements a heartbeat carries, then returns the agent's unacknowledged
   * commands, counted as delivered once more, in one transaction.
   *
   * @param acked the ids the agent acknowledges; null for an agent that does not acknowledge by id
   */
  public Future<List<Command>> deliver(String agentId, Collection<String> acked) {
    String now = Timestamps.now();
    return pool.withTransaction(conn -> acknowledge(conn, agentId, acked, now)
        .compose(v -> Sql.rows(conn, PENDING, Tuple.of(agentId), StoredCommand.class))
        .compose(rows -> {
          Future<Void> chain = Future.succeededFuture();
          for (StoredCommand row : rows) {
            chain = chain.compose(v -> Sql.update(conn, DELIVERED, Tuple.of(now, row.id())).mapEmpty());
          }
          return chain.map(v -> rows.stream().map(CommandStore::command).toList());
        }));
  }

  /** A row of commands, as far as a heartbeat answer needs it; the payload is JSON text. */
  record StoredCommand(String id, String testId, String type, String payload) {
  }

  /** A stored command as the heartbeat answer carries it. */
  private static Command command(StoredCommand row) {
    JsonObject payload = StoredJson.object(row.payload());
    return new Command(row.id(), row.testId(), row.type(), payload == null ? new JsonObject() : payload);
  }

  private static Future<Void> acknowledge(SqlClient client, String agentId, Collection<String> acked, String now) {
    if (acked == null) {
      return Sql.update(client, ACK_DELIVERED, Tuple.of(now, agentId)).mapEmpty();
    }
    Future<Void> chain = Future.succeededFuture();
    for (String id : acked) {
      chain = chain.compose(v -> Sql.update(client, ACK, Tuple.of(now, agentId, id)).mapEmpty());
    }
    return chain;
  }

  /** Settles every command of an agent that is gone (deleted): none of them will be delivered. */
  public Future<Void> dropAll(SqlClient client, String agentId) {
    return Sql.update(client, ACK_ALL, Tuple.of(Timestamps.now(), agentId)).mapEmpty();
  }
}
