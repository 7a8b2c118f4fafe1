package dev.svc.server.store;

import dev.svc.core.Timestamps;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.Optional;

/** Indexed results: the whole metrics.json plus the columns that lists filter on. */
public final class ResultStore {

  private static final String COLUMNS = "id, model, engine, suite_name, timestamp, passed, data, source_path, test_id,"
      + " agent_id, command_id, created_at";
  private static final String INSERT = "INSERT INTO results (" + COLUMNS + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)";
  private static final String INSERT_SCANNED = INSERT + " ON CONFLICT (source_path) DO NOTHING";
  private static final String LIVE = " deleted_at IS NULL";
  private static final String BY_ID = "SELECT " + COLUMNS + " FROM results WHERE id = ? AND" + LIVE;
  private static final String BY_AGENT_COMMAND = "SELECT " + COLUMNS + " FROM results WHERE agent_id = ?"
      + " AND command_id = ? AND" + LIVE;
  private static final String DELETE = "DELETE FROM results WHERE id = ? AND source_path IS NULL AND" + LIVE;
  /** A result indexed from a file stays as a tombstone, so the next scan does not bring it back. */
  private static final String TOMBSTONE = "UPDATE results SET deleted_at = ?, data = NULL WHERE id = ?"
      + " AND source_path IS NOT NULL AND" + LIVE;
  private static final String UNLINK_TEST = "UPDATE quick_tests SET result_id = NULL WHERE result_id = ?";

  private final Pool pool;

  public ResultStore(Pool pool) {
    this.pool = pool;
  }

  /** A result row to insert; {@code sourcePath} is set for files found on disk, {@code commandId} for agent reports. */
  public record NewResult(String id, String model, String engine, String suiteName, String timestamp, boolean passed,
      JsonObject data, String sourcePath, String testId, String agentId, String commandId) {
  }

  public Future<Void> insert(SqlClient client, NewResult r) {
    return Sql.update(client, INSERT, tuple(r)).mapEmpty();
  }

  /** Inserts a result found on disk unless that file is already indexed; true when it was new. */
  public Future<Boolean> insertScanned(NewResult r) {
    return Sql.update(pool, INSERT_SCANNED, tuple(r)).map(n -> n > 0);
  }

  private static Tuple tuple(NewResult r) {
    return Tuple.tuple().addValue(r.id()).addValue(r.model()).addValue(r.engine()).addValue(r.suiteName())
        .addValue(r.timestamp()).addValue(Sql.flag(r.passed())).addValue(r.data().encode())
        .addValue(r.sourcePath()).addValue(r.testId()).addValue(r.agentId()).addValue(r.commandId())
        .addValue(Timestamps.now());
  }

  public Future<Optional<JsonObject>> byId(String id) {
    return Sql.row(pool, BY_ID, Tuple.of(id));
  }

  /** The result an agent reported for one of its commands (results are unique per agent and command). */
  public Future<Optional<JsonObject>> byAgentCommand(SqlClient client, String agentId, String commandId) {
    return Sql.row(client, BY_AGENT_COMMAND, Tuple.of(agentId, commandId));
  }

  public Future<Page> list(String model, String engine, String suite, String agentId, String since, String until,
      int limit, int offset) {
    Filters f = new Filters()
        .always("deleted_at IS NULL")
        .where("model = ?", model)
        .where("engine = ?", engine)
        .where("suite_name = ?", suite)
        .where("agent_id = ?", agentId)
        .where("timestamp >= ?", since)
        .where("timestamp <= ?", until);
    return Sql.count(pool, "SELECT COUNT(*) FROM results" + f.sql(), f.params())
        .compose(total -> Sql.rows(pool, "SELECT " + COLUMNS + " FROM results" + f.sql()
            + " ORDER BY timestamp DESC, id DESC LIMIT ? OFFSET ?", f.params(limit, offset))
            .map(rows -> new Page(rows, total)));
  }

  /** The columns whose distinct values the results page suggests as filters. */
  public enum Facet {
    MODEL("model"), ENGINE("engine"), SUITE("suite_name");

    private final String column;

    Facet(String column) {
      this.column = column;
    }
  }

  /** The distinct values of a column among live results, sorted, at most {@code limit}. */
  public Future<List<String>> distinct(Facet facet, int limit) {
    String sql = "SELECT DISTINCT " + facet.column + " AS v FROM results WHERE" + LIVE + " AND " + facet.column
        + " IS NOT NULL ORDER BY v LIMIT ?";
    return Sql.rows(pool, sql, Tuple.of(limit)).map(rows -> rows.stream().map(r -> r.getString("v")).toList());
  }

  public Future<Boolean> delete(String id) {
    return pool.withTransaction(conn -> Sql.update(conn, UNLINK_TEST, Tuple.of(id))
        .compose(v -> Sql.update(conn, DELETE, Tuple.of(id)))
        .compose(deleted -> deleted > 0 ? Future.succeededFuture(deleted)
            : Sql.update(conn, TOMBSTONE, Tuple.of(Timestamps.now(), id)))
        .map(n -> n > 0));
  }

  public Future<List<JsonObject>> byIds(List<String> ids) {
    if (ids.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    String marks = String.join(",", java.util.Collections.nCopies(ids.size(), "?"));
    Tuple t = Tuple.tuple();
    ids.forEach(t::addValue);
    return Sql.rows(pool, "SELECT " + COLUMNS + " FROM results WHERE id IN (" + marks + ") AND" + LIVE, t);
  }
}
