package dev.svc.server.store;

import dev.svc.core.Timestamps;
import dev.svc.core.domain.QuickTestStatus;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.Optional;

/** Quick tests, their status moves (compare-and-set on the current status) and their log lines. */
public final class QuickTestStore {

  private static final String SELECT = "SELECT q.*, a.name AS agent_name, a.deleted_at AS agent_deleted_at,"
      + " a.is_test_agent AS agent_is_test FROM quick_tests q LEFT JOIN agents a ON a.id = q.agent_id";
  private static final String BY_ID = SELECT + " WHERE q.id = ?";
  private static final String BY_COMMAND = SELECT + " WHERE q.command_id = ?";
  private static final String INSERT = "INSERT INTO quick_tests (id, agent_id, model_path, engine_name, benchmark_name,"
      + " suite_name, status, command_id, force, attempts, campaign_id, campaign_row, created_at, updated_at)"
      + " VALUES (?,?,?,?,?,?,?,?,?,0,?,?,?,?)";
  private static final String ACTIVE_ON_AGENT = "SELECT COUNT(*) FROM quick_tests WHERE agent_id = ?"
      + " AND status IN ('dispatched','running')";
  private static final String OLDEST_QUEUED = "SELECT * FROM quick_tests WHERE agent_id = ? AND status = 'queued'"
      + " ORDER BY created_at, id LIMIT 1";
  private static final String DISPATCH = "UPDATE quick_tests SET status = 'dispatched', dispatched_at = ?,"
      + " lease_expires_at = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'queued'";
  private static final String MOVE = "UPDATE quick_tests SET status = ?, error = COALESCE(?, error),"
      + " started_at = COALESCE(started_at, ?), completed_at = COALESCE(?, completed_at), lease_expires_at = NULL,"
      + " updated_at = ? WHERE id = ? AND status = ?";
  private static final String EXPIRED_LEASES = SELECT + " WHERE q.status = 'dispatched' AND q.lease_expires_at < ?"
      + " ORDER BY q.lease_expires_at";
  private static final String ACTIVE_OF_AGENT = SELECT + " WHERE q.agent_id = ? AND q.status IN ('dispatched','running')";
  private static final String ACTIVE_ON_TEST_AGENTS = SELECT + " WHERE q.status IN ('queued','running')"
      + " AND a.is_test_agent = 1 ORDER BY q.created_at, q.id";
  private static final String LINK_RESULT = "UPDATE quick_tests SET result_id = ?, updated_at = ? WHERE id = ?";
  private static final String INSERT_LOG = "INSERT INTO quick_test_logs (test_id, line, created_at) VALUES (?, ?, ?)";
  private static final String INSERT_LOG_IF_RUNNING = "INSERT INTO quick_test_logs (test_id, line, created_at)"
      + " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM quick_tests WHERE id = ? AND status = 'running')";
  private static final String LOGS = "SELECT id, created_at, line FROM quick_test_logs WHERE test_id = ? AND id > ?"
      + " ORDER BY id LIMIT ?";
  private static final String LAST_SEQ = "SELECT last_log_seq FROM quick_tests WHERE id = ?";
  private static final String SET_SEQ = "UPDATE quick_tests SET last_log_seq = ? WHERE id = ?";

  private final Pool pool;

  public QuickTestStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> insert(JsonObject q) {
    String now = Timestamps.now();
    Tuple t = Tuple.tuple().addValue(q.getString("id")).addValue(q.getString("agent_id"))
        .addValue(q.getString("model_path")).addValue(q.getString("engine_name"))
        .addValue(q.getString("benchmark_name")).addValue(q.getString("suite_name"))
        .addValue(QuickTestStatus.QUEUED.wireName()).addValue(q.getString("command_id"))
        .addValue(Sql.flag(q.getBoolean("force", false))).addValue(q.getString("campaign_id"))
        .addValue(q.getInteger("campaign_row")).addValue(now).addValue(now);
    return Sql.update(pool, INSERT, t).mapEmpty();
  }

  public Future<Optional<JsonObject>> byId(String id) {
    return Sql.row(pool, BY_ID, Tuple.of(id));
  }

  public Future<Optional<JsonObject>> byCommandId(String commandId) {
    return Sql.row(pool, BY_COMMAND, Tuple.of(commandId));
  }

  public Future<Page> list(String status, String agentId, String agentName, String engine, String model, int limit, int offset) {
    Filters f = new Filters()
        .where("q.status = ?", status)
        .where("q.agent_id = ?", agentId)
        .where("a.name = ?", agentName)
        .where("q.engine_name = ?", engine)
        .where("q.model_path LIKE ?", model == null ? null : "%" + model + "%");
    String from = " FROM quick_tests q LEFT JOIN agents a ON a.id = q.agent_id" + f.sql();
    return Sql.count(pool, "SELECT COUNT(*)" + from, f.params())
        .compose(total -> Sql.rows(pool, SELECT + f.sql() + " ORDER BY q.created_at DESC, q.id DESC LIMIT ? OFFSET ?",
            f.params(limit, offset)).map(rows -> new Page(rows, total)));
  }

  public Future<Boolean> hasActiveTest(String agentId) {
    return Sql.count(pool, ACTIVE_ON_AGENT, Tuple.of(agentId)).map(n -> n > 0);
  }

  public Future<Optional<JsonObject>> oldestQueued(String agentId) {
    return Sql.row(pool, OLDEST_QUEUED, Tuple.of(agentId));
  }

  /** Hands a queued test out with a lease; false when another caller moved it first. */
  public Future<Boolean> dispatch(String id, String leaseExpiresAt) {
    String now = Timestamps.now();
    return Sql.update(pool, DISPATCH, Tuple.of(now, leaseExpiresAt, now, id)).map(n -> n == 1);
  }

  /** Moves a test from {@code from} to {@code to}; false when its status was no longer {@code from}. */
  public Future<Boolean> move(String id, QuickTestStatus from, QuickTestStatus to, String error) {
    String now = Timestamps.now();
    Tuple t = Tuple.tuple().addValue(to.wireName()).addValue(error)
        .addValue(to == QuickTestStatus.RUNNING ? now : null)
        .addValue(to.isTerminal() ? now : null)
        .addValue(now).addValue(id).addValue(from.wireName());
    return Sql.update(pool, MOVE, t).map(n -> n == 1);
  }

  /** Dispatched tests whose lease ended before {@code now}. */
  public Future<List<JsonObject>> expiredLeases(String now) {
    return Sql.rows(pool, EXPIRED_LEASES, Tuple.of(now));
  }

  /** The tests an agent holds: dispatched or running. */
  public Future<List<JsonObject>> activeOfAgent(String agentId) {
    return Sql.rows(pool, ACTIVE_OF_AGENT, Tuple.of(agentId));
  }

  /** Queued or running tests of test agents, oldest first (their simulations resume after a restart). */
  public Future<List<JsonObject>> activeOnTestAgents() {
    return Sql.rows(pool, ACTIVE_ON_TEST_AGENTS, Tuple.tuple());
  }

  public Future<Void> linkResult(String id, String resultId) {
    return Sql.update(pool, LINK_RESULT, Tuple.of(resultId, Timestamps.now(), id)).mapEmpty();
  }

  /**
   * Appends log lines in one transaction. With a {@code seq}, a batch whose sequence number was
   * already stored is ignored, so an agent's retry does not duplicate lines. Returns the stored
   * rows (empty for an ignored retry).
   */
  public Future<List<JsonObject>> appendLogs(String testId, List<String> lines, Long seq) {
    return pool.withTransaction(conn -> {
      Future<Boolean> fresh = seq == null ? Future.succeededFuture(true)
          : Sql.row(conn, LAST_SEQ, Tuple.of(testId)).map(r -> {
            Long last = r.map(j -> j.getLong("last_log_seq")).orElse(null);
            return last == null || seq > last;
          });
      return fresh.compose(isFresh -> {
        if (!isFresh) {
          return Future.succeededFuture(List.<JsonObject>of());
        }
        String now = Timestamps.now();
        List<JsonObject> stored = new java.util.ArrayList<>();
        Future<Void> chain = seq == null ? Future.succeededFuture()
            : Sql.update(conn, SET_SEQ, Tuple.of(seq, testId)).mapEmpty();
        for (String line : lines) {
          chain = chain.compose(v -> Sql.update(conn, INSERT_LOG, Tuple.of(testId, line, now)))
              .map(n -> {
                stored.add(new JsonObject().put("line", line).put("created_at", now));
                return null;
              });
        }
        return chain.map(v -> stored);
      });
    });
  }

  /**
   * Stores one log line only while the test is running, in one statement, so a line cannot slip in
   * after a cancel; false when the test was no longer running.
   */
  public Future<Boolean> appendLogIfRunning(String testId, String line) {
    return Sql.update(pool, INSERT_LOG_IF_RUNNING, Tuple.of(testId, line, Timestamps.now(), testId)).map(n -> n == 1);
  }

  public Future<List<JsonObject>> logs(String testId, long afterId, int limit) {
    return Sql.rows(pool, LOGS, Tuple.of(testId, afterId, limit));
  }
}
