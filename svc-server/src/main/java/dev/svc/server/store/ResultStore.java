package dev.svc.server.store;

import dev.svc.core.Timestamps;
import dev.svc.server.json.BoundedJson;
import dev.svc.server.results.ResultSummary;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.Optional;

/**
 * Indexed results: the whole metrics.json ({@code data}), its {@link ResultSummary} ({@code summary})
 * and the columns that lists filter on. Lists read the summary, never {@code data}: one document can
 * be many megabytes.
 */
public final class ResultStore {

  /** What a list item needs: everything but the whole document. */
  private static final String LIST_COLUMNS = "id, model, engine, suite_name, timestamp, passed, summary, source_path,"
      + " test_id, agent_id, command_id, created_at";
  private static final String COLUMNS = LIST_COLUMNS + ", data";
  private static final String INSERT = "INSERT INTO results (id, model, engine, suite_name, timestamp, passed, data,"
      + " summary, source_path, test_id, agent_id, command_id, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
  private static final String INSERT_SCANNED = INSERT + " ON CONFLICT (source_path) DO NOTHING";
  private static final String LIVE = " deleted_at IS NULL";
  private static final String BY_ID = "SELECT " + COLUMNS + " FROM results WHERE id = ? AND" + LIVE;
  private static final String BY_AGENT_COMMAND = "SELECT " + LIST_COLUMNS + " FROM results WHERE agent_id = ?"
      + " AND command_id = ? AND" + LIVE;
  private static final String TEST_OF = "SELECT test_id FROM results WHERE id = ? AND" + LIVE;
  private static final String DELETE = "DELETE FROM results WHERE id = ? AND source_path IS NULL AND" + LIVE;
  /** A result indexed from a file stays as a tombstone, so the next scan does not bring it back. */
  private static final String TOMBSTONE = "UPDATE results SET deleted_at = ?, data = NULL, summary = NULL WHERE id = ?"
      + " AND source_path IS NOT NULL AND" + LIVE;
  private static final String UNLINK_TEST = "UPDATE quick_tests SET result_id = NULL WHERE result_id = ?";
  /** The {@code result} events that announced a result, so a deleted one is not announced again by a replay. */
  private static final String RESULT_EVENTS = "SELECT id, data FROM events WHERE source_id = ? AND type = 'result'";
  private static final String DELETE_EVENT = "DELETE FROM events WHERE id = ?";
  private static final String WITHOUT_SUMMARY = "SELECT id FROM results WHERE summary IS NULL AND" + LIVE
      + " ORDER BY id LIMIT ?";
  private static final String AGENTS_WITH_RESULTS = "SELECT a.id, a.name FROM agents a WHERE a.deleted_at IS NULL"
      + " AND EXISTS (SELECT 1 FROM results r WHERE r.agent_id = a.id AND r.deleted_at IS NULL) ORDER BY a.name, a.id";
  private static final String DATA_OF = "SELECT data FROM results WHERE id = ?";
  /** Every file indexed so far, deleted ones too: their tombstones keep them from coming back. */
  private static final String SOURCE_PATHS = "SELECT source_path FROM results WHERE source_path IS NOT NULL";
  private static final String SET_SUMMARY = "UPDATE results SET summary = ? WHERE id = ? AND summary IS NULL";

  private final Pool pool;
  private final ListCounts counts;

  public ResultStore(Pool pool) {
    this.pool = pool;
    this.counts = new ListCounts(pool);
  }

  /** A result row to insert; {@code sourcePath} is set for files found on disk, {@code commandId} for agent reports. */
  /** An agent's id and name. */
  public record AgentName(String id, String name) {

    /** The name, or the id of an agent that has none. */
    public String label() {
      return name == null ? id : name;
    }
  }

  public record NewResult(String id, String model, String engine, String suiteName, String timestamp, boolean passed,
      JsonObject data, String sourcePath, String testId, String agentId, String commandId) {
  }

  public Future<Void> insert(SqlClient client, NewResult r) {
    return tuple(r).compose(t -> Sql.update(client, INSERT, t)).mapEmpty();
  }

  /** Inserts a result found on disk unless that file is already indexed; true when it was new. */
  public Future<Boolean> insertScanned(NewResult r) {
    return tuple(r).compose(t -> Sql.update(pool, INSERT_SCANNED, t)).map(n -> n > 0);
  }

  private static Future<Tuple> tuple(NewResult r) {
    // What comes in was decoded by BoundedJson; this keeps a document built in code from storing what no reader takes.
    if (!BoundedJson.withinLimit(r.data())) {
      return Future.failedFuture(new IllegalArgumentException("Result " + r.id() + " is nested deeper than "
          + BoundedJson.MAX_DEPTH + " levels"));
    }
    return Future.succeededFuture(Tuple.tuple().addValue(r.id()).addValue(r.model()).addValue(r.engine())
        .addValue(r.suiteName()).addValue(r.timestamp()).addValue(Sql.flag(r.passed())).addValue(r.data().encode())
        .addValue(ResultSummary.of(r.data()).encode()).addValue(r.sourcePath()).addValue(r.testId())
        .addValue(r.agentId()).addValue(r.commandId()).addValue(Timestamps.now()));
  }

  /** One result with its whole document ({@code data}). */
  public Future<Optional<StoredResult>> byId(String id) {
    return Sql.row(pool, BY_ID, Tuple.of(id), StoredResult.class);
  }

  /** The result an agent reported for one of its commands, without its document (results are unique per agent and command). */
  public Future<Optional<StoredResult>> byAgentCommand(SqlClient client, String agentId, String commandId) {
    return Sql.row(client, BY_AGENT_COMMAND, Tuple.of(agentId, commandId), StoredResult.class);
  }

  /** A page of results, newest first, as summaries: the rows have {@code summary} and no {@code data}. */
  public Future<Page<StoredResult>> list(String model, String engine, String suite, String agentId, String since,
      String until, int limit, int offset) {
    return list(model, engine, suite, agentId, since, until, limit, offset, null);
  }

  /**
   * A page of results, newest first, as summaries, past {@code offset} or, when {@code after} is
   * set, right after that cursor. The total is {@link ListCounts}': stored for the whole list,
   * counted once per change of the table for a filter.
   */
  public Future<Page<StoredResult>> list(String model, String engine, String suite, String agentId, String since,
      String until, int limit, int offset, Cursor after) {
    Filters f = new Filters()
        .always("deleted_at IS NULL")
        .where("model = ?", model)
        .where("engine = ?", engine)
        .where("suite_name = ?", suite)
        .where("agent_id = ?", agentId)
        .where("timestamp >= ?", since)
        .where("timestamp <= ?", until);
    Future<Long> total = counts.total(ListCounts.RESULTS, null, f.optionalCount() > 0, true,
        "SELECT COUNT(*) FROM results" + f.sql(), f.params());
    return total.compose(n -> Sql.rows(pool, f.pageSql("SELECT " + LIST_COLUMNS + " FROM results", "FROM results",
            "timestamp", "id", after), f.pageParams(after, limit, offset), StoredResult.class)
        .map(rows -> Filters.page(rows, limit, n, r -> new Cursor(r.timestamp(), r.id()))));
  }

  /** The columns whose distinct values the results page suggests as filters. */
  public enum Facet {
    MODEL("model"), ENGINE("engine"), SUITE("suite_name");

    private final String column;

    Facet(String column) {
      this.column = column;
    }
  }

  /**
   * The distinct values of a column among live results, sorted, at most {@code limit}. Each value is
   * the smallest one above the one before, one seek in the column's index each ({@code DISTINCT}
   * walked every entry of the index: 100,000 results, three facets, every results page).
   */
  public Future<List<String>> distinct(Facet facet, int limit) {
    String c = facet.column;
    String sql = "WITH RECURSIVE f(v) AS (SELECT MIN(" + c + ") FROM results WHERE" + LIVE + " AND " + c + " IS NOT NULL"
        + " UNION ALL SELECT (SELECT MIN(" + c + ") FROM results WHERE" + LIVE + " AND " + c + " > f.v) FROM f"
        + " WHERE f.v IS NOT NULL) SELECT v FROM f WHERE v IS NOT NULL LIMIT ?";
    return Sql.strings(pool, sql, Tuple.of(limit));
  }

  /**
   * The live agents that have live results, by name ({@code id}, {@code name}): the results page's
   * agent filter, and the names of its rows' agents. One seek per agent in {@code ix_results_live_agent}.
   */
  public Future<List<AgentName>> agentsWithResults() {
    return Sql.rows(pool, AGENTS_WITH_RESULTS, Tuple.tuple(), AgentName.class);
  }

  /**
   * Deletes a result (a file's becomes a tombstone), unlinks its test and removes the {@code result}
   * events that announced it, in the caller's transaction (the event log's: it removes events).
   */
  public Future<Boolean> delete(SqlConnection conn, String id) {
    return Sql.rows(conn, TEST_OF, Tuple.of(id), StoredResult.class).compose(rows -> {
      if (rows.isEmpty()) {
        return Future.succeededFuture(false);
      }
      String testId = rows.get(0).testId();
      return Sql.update(conn, UNLINK_TEST, Tuple.of(id))
          .compose(v -> Sql.update(conn, DELETE, Tuple.of(id)))
          .compose(deleted -> deleted > 0 ? Future.succeededFuture(deleted)
              : Sql.update(conn, TOMBSTONE, Tuple.of(Timestamps.now(), id)))
          .compose(n -> testId == null ? Future.succeededFuture(n > 0) : unannounce(conn, testId, id).map(n > 0));
    });
  }

  private static Future<Void> unannounce(SqlConnection conn, String testId, String resultId) {
    return Sql.rows(conn, RESULT_EVENTS, Tuple.of(testId), StoredEvent.class).compose(events -> {
      Future<Void> chain = Future.succeededFuture();
      for (StoredEvent event : events) {
        JsonObject data = StoredJson.object(event.data());
        if (data != null && resultId.equals(data.getValue("result_id"))) {
          long eventId = event.id();
          chain = chain.compose(v -> Sql.update(conn, DELETE_EVENT, Tuple.of(eventId)).mapEmpty());
        }
      }
      return chain;
    });
  }

  /** The list rows (summaries, no {@code data}) of these ids that name a live result, in no particular order. */
  public Future<List<StoredResult>> summaries(List<String> ids) {
    if (ids.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    String marks = String.join(",", java.util.Collections.nCopies(ids.size(), "?"));
    Tuple t = Tuple.tuple();
    ids.forEach(t::addValue);
    return Sql.rows(pool, "SELECT " + LIST_COLUMNS + " FROM results WHERE id IN (" + marks + ") AND" + LIVE, t,
        StoredResult.class);
  }

  // --- summaries of rows stored before there were any ---

  /** Up to {@code limit} live results that have no summary yet. */
  public Future<List<String>> withoutSummary(int limit) {
    return Sql.strings(pool, WITHOUT_SUMMARY, Tuple.of(limit));
  }

  /** The paths of the metrics.json files indexed so far (deleted results' too). */
  public Future<java.util.Set<String>> sourcePaths() {
    return Sql.strings(pool, SOURCE_PATHS, Tuple.tuple()).map(java.util.HashSet::new);
  }

  /** One result's stored document as text (empty when the result is gone). */
  public Future<Optional<String>> dataText(String id) {
    return Sql.strings(pool, DATA_OF, Tuple.of(id)).map(rows -> rows.isEmpty() ? Optional.empty()
        : Optional.ofNullable(rows.get(0)));
  }

  /** Stores the summary of a result that has none. */
  public Future<Void> saveSummary(String id, JsonObject summary) {
    return Sql.update(pool, SET_SUMMARY, Tuple.of(summary.encode(), id)).mapEmpty();
  }
}
