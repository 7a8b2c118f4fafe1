package dev.svc.server.store;

import dev.svc.core.Timestamps;
import dev.svc.core.domain.QuickTestStatus;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Quick tests, their status moves (compare-and-set on the current status) and their log lines. */
public final class QuickTestStore {

  private static final String SELECT = "SELECT q.*, a.name AS agent_name, a.deleted_at AS agent_deleted_at,"
      + " a.is_test_agent AS agent_is_test FROM quick_tests q LEFT JOIN agents a ON a.id = q.agent_id";
  private static final String BY_ID = SELECT + " WHERE q.id = ?";
  private static final String BY_COMMAND = SELECT + " WHERE q.command_id = ?";
  private static final String INSERT = "INSERT INTO quick_tests (id, agent_id, model_path, engine_name, benchmark_name,"
      + " suite_name, status, command_id, force, attempts, campaign_id, campaign_row, created_at, updated_at)"
      + " SELECT ?,?,?,?,?,?,?,?,?,0,?,?,?,? WHERE EXISTS (SELECT 1 FROM agents WHERE id = ? AND deleted_at IS NULL)";
  private static final String ACTIVE_ON_AGENT = "SELECT * FROM quick_tests WHERE agent_id = ?"
      + " AND status IN ('dispatched','running') LIMIT 1";
  private static final String OLDEST_QUEUED = "SELECT * FROM quick_tests WHERE agent_id = ? AND status = 'queued'"
      + " ORDER BY created_at, id LIMIT 1";
  private static final String DISPATCH = "UPDATE quick_tests SET status = 'dispatched', dispatched_at = ?,"
      + " lease_expires_at = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'queued'";
  private static final String MOVE = "UPDATE quick_tests SET status = ?, error = COALESCE(?, error),"
      + " started_at = COALESCE(started_at, ?), completed_at = COALESCE(?, completed_at), lease_expires_at = NULL,"
      + " ended_by = COALESCE(?, ended_by), updated_at = ? WHERE id = ? AND status = ?";
  private static final String EXPIRED_LEASES = SELECT + " WHERE q.status = 'dispatched' AND q.lease_expires_at < ?"
      + " ORDER BY q.lease_expires_at";
  private static final String ACTIVE_OF_AGENT = SELECT + " WHERE q.agent_id = ? AND q.status IN ('dispatched','running')";
  private static final String RUNNING_ON_OFFLINE_AGENTS = "SELECT q.*, a.last_heartbeat_at AS agent_last_heartbeat_at"
      + " FROM quick_tests q JOIN agents a ON a.id = q.agent_id WHERE q.status = 'running' AND a.status = 'offline'"
      + " AND a.is_test_agent = 0 AND a.deleted_at IS NULL";
  private static final String HELD_BY_AGENT = SELECT + " WHERE q.agent_id = ?"
      + " AND q.status IN ('queued','dispatched','running') ORDER BY q.created_at, q.id";
  private static final String NEXT_ON_TEST_AGENT = SELECT + " WHERE q.agent_id = ? AND q.status IN ('queued','running')"
      + " ORDER BY CASE q.status WHEN 'running' THEN 0 ELSE 1 END, q.created_at, q.id LIMIT 1";
  private static final String TEST_AGENTS_WITH_WORK = "SELECT DISTINCT q.agent_id FROM quick_tests q"
      + " JOIN agents a ON a.id = q.agent_id WHERE q.status IN ('queued','running') AND a.is_test_agent = 1";
  private static final String LINK_RESULT = "UPDATE quick_tests SET result_id = ?, updated_at = ? WHERE id = ?";
  private static final String STATUS = "SELECT status FROM quick_tests WHERE id = ?";
  private static final String INSERT_BATCH = "INSERT INTO quick_test_log_batches (test_id, seq, created_at)"
      + " SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM quick_test_log_batches WHERE test_id = ? AND seq = ?)";
  /** Reads the partial index of active tests alone. */
  private static final String BUSY_AGENTS = "SELECT agent_id FROM quick_tests WHERE status IN ('dispatched','running')";

  /** Who ended a test: the agent that ran it (its report, or a test agent's simulation) or the server. */
  public enum EndedBy {
    AGENT, SERVER;

    String column() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** What became of a batch of log lines. */
  public enum LogAppend {
    /** Stored, every line. */
    STORED,
    /** A retry of a batch (same seq) already stored: nothing stored again. */
    DUPLICATE,
    /** The test does not exist, is not yet handed to an agent, or has ended: nothing stored. */
    NOT_ACTIVE
  }

  private final Pool pool;
  private final ListCounts counts;

  public QuickTestStore(Pool pool) {
    this.pool = pool;
    this.counts = new ListCounts(pool);
  }

  /** Stores a new queued test; false (nothing stored) when its agent does not exist or was deleted. */
  public Future<Boolean> insert(SqlClient client, NewQuickTest q) {
    String now = Timestamps.now();
    Tuple t = Tuple.tuple().addValue(q.id()).addValue(q.agentId()).addValue(q.modelPath()).addValue(q.engineName())
        .addValue(q.benchmarkName()).addValue(q.suiteName()).addValue(QuickTestStatus.QUEUED.wireName())
        .addValue(q.commandId()).addValue(Sql.flag(q.force())).addValue(q.campaignId()).addValue(q.campaignRow())
        .addValue(now).addValue(now).addValue(q.agentId());
    return Sql.update(client, INSERT, t).map(n -> n == 1);
  }

  public Future<Optional<StoredQuickTest>> byId(String id) {
    return byId(pool, id);
  }

  public Future<Optional<StoredQuickTest>> byId(SqlClient client, String id) {
    return Sql.row(client, BY_ID, Tuple.of(id), StoredQuickTest.class);
  }

  public Future<Optional<StoredQuickTest>> byCommandId(String commandId) {
    return Sql.row(pool, BY_COMMAND, Tuple.of(commandId), StoredQuickTest.class);
  }

  public Future<Page<StoredQuickTest>> list(String status, String agentId, String agentName, String engine, String model,
      int limit, int offset) {
    return list(status, agentId, agentName, engine, model, limit, offset, null);
  }

  /**
   * A page of tests, newest first, past {@code offset} or, when {@code after} is set, right after
   * that cursor. The total is {@link ListCounts}': stored for the whole list and for each status,
   * counted once per change of the table for another filter (every time for an agent's name, which
   * the agents table decides).
   */
  public Future<Page<StoredQuickTest>> list(String status, String agentId, String agentName, String engine, String model,
      int limit, int offset, Cursor after) {
    Filters f = new Filters()
        .where("q.agent_id = ?", agentId)
        // by the agents' ids, so that the tests are found through their agent's index, not by a join per test
        .where("q.agent_id IN (SELECT id FROM agents WHERE name = ?)", agentName)
        .where("q.engine_name = ?", engine)
        .where("q.model_path LIKE ?", model == null || model.isEmpty() ? null : "%" + model + "%");
    boolean filtered = f.optionalCount() > 0;
    f.where("q.status = ?", status);
    Future<Long> total = counts.total(ListCounts.QUICK_TESTS, status == null || status.isEmpty() ? null : status,
        filtered, agentName == null || agentName.isEmpty(), "SELECT COUNT(*) FROM quick_tests q" + f.sql(), f.params());
    return total.compose(n -> Sql.rows(pool, f.pageSql(SELECT, "FROM quick_tests q", "q.created_at", "q.id", after),
        f.pageParams(after, limit, offset), StoredQuickTest.class)
        .map(rows -> Filters.page(rows, limit, n, t -> new Cursor(t.createdAt(), t.id()))));
  }

  /** How many tests are in each of these statuses, together (read from {@link ListCounts}, never counted). */
  public Future<Long> totalIn(List<String> statuses) {
    return counts.sumOf(ListCounts.QUICK_TESTS, statuses);
  }

  /** How many tests are in each status ({@code queued} → 3; statuses without tests left out), from {@link ListCounts}. */
  public Future<Map<String, Long>> countsByStatus() {
    return counts.byStatus(ListCounts.QUICK_TESTS);
  }

  /** Which of these agents hold a dispatched or running test (read from {@code ux_quick_tests_active_agent}). */
  public Future<List<String>> busyAmong(List<String> agentIds) {
    if (agentIds.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    Tuple t = Tuple.tuple();
    agentIds.forEach(t::addValue);
    return Sql.strings(pool, BUSY_AGENTS + " AND agent_id IN (" + String.join(",", java.util.Collections.nCopies(
        agentIds.size(), "?")) + ")", t);
  }

  /** The agent's dispatched or running test, if it holds one (at most one: {@code ux_quick_tests_active_agent}). */
  public Future<Optional<StoredQuickTest>> activeTest(String agentId) {
    return Sql.row(pool, ACTIVE_ON_AGENT, Tuple.of(agentId), StoredQuickTest.class);
  }

  public Future<Optional<StoredQuickTest>> oldestQueued(String agentId) {
    return Sql.row(pool, OLDEST_QUEUED, Tuple.of(agentId), StoredQuickTest.class);
  }

  /**
   * Hands a queued test out with a lease; false when another caller moved it first. Fails with a
   * unique violation when the agent holds another active test ({@code ux_quick_tests_active_agent}).
   */
  public Future<Boolean> dispatch(SqlClient client, String id, String leaseExpiresAt) {
    String now = Timestamps.now();
    return Sql.update(client, DISPATCH, Tuple.of(now, leaseExpiresAt, now, id)).map(n -> n == 1);
  }

  /**
   * Moves a test from {@code from} to {@code to}; false when its status was no longer {@code from}.
   * Moving to running fails with a unique violation when the agent holds another active test.
   */
  public Future<Boolean> move(SqlClient client, String id, QuickTestStatus from, QuickTestStatus to, String error,
      EndedBy endedBy) {
    String now = Timestamps.now();
    Tuple t = Tuple.tuple().addValue(to.wireName()).addValue(error)
        .addValue(to == QuickTestStatus.RUNNING ? now : null)
        .addValue(to.isTerminal() ? now : null)
        .addValue(to.isTerminal() ? endedBy.column() : null)
        .addValue(now).addValue(id).addValue(from.wireName());
    return Sql.update(client, MOVE, t).map(n -> n == 1);
  }

  /** Dispatched tests whose lease ended before {@code now}. */
  public Future<List<StoredQuickTest>> expiredLeases(String now) {
    return Sql.rows(pool, EXPIRED_LEASES, Tuple.of(now), StoredQuickTest.class);
  }

  /** The tests an agent holds: dispatched or running. */
  public Future<List<StoredQuickTest>> activeOfAgent(String agentId) {
    return Sql.rows(pool, ACTIVE_OF_AGENT, Tuple.of(agentId), StoredQuickTest.class);
  }

  /**
   * Running tests of live real agents now marked offline, each with its agent's written
   * {@code agent_last_heartbeat_at}: few, whatever the size of the fleet.
   */
  public Future<List<StoredQuickTest>> runningOnOfflineAgents() {
    return Sql.rows(pool, RUNNING_ON_OFFLINE_AGENTS, Tuple.tuple(), StoredQuickTest.class);
  }

  /** The tests an agent still has to run or is running: queued, dispatched or running, oldest first. */
  public Future<List<StoredQuickTest>> heldBy(SqlClient client, String agentId) {
    return Sql.rows(client, HELD_BY_AGENT, Tuple.of(agentId), StoredQuickTest.class);
  }

  /** The ids of test agents with a queued or running test (their simulations resume after a restart). */
  public Future<List<String>> testAgentsWithWork() {
    return Sql.strings(pool, TEST_AGENTS_WITH_WORK, Tuple.tuple());
  }

  /** What a test agent runs next: its running test (resumed after a restart), else its oldest queued one. */
  public Future<Optional<StoredQuickTest>> nextOnTestAgent(String agentId) {
    return Sql.row(pool, NEXT_ON_TEST_AGENT, Tuple.of(agentId), StoredQuickTest.class);
  }

  public Future<Void> linkResult(SqlClient client, String id, String resultId) {
    return Sql.update(client, LINK_RESULT, Tuple.of(resultId, Timestamps.now(), id)).mapEmpty();
  }

  /**
   * Whether log lines of a test may be stored now, in the caller's transaction (which stores them as
   * events): only while an agent holds the test (dispatched or running). With a {@code seq}, each
   * batch is taken once: a retry of a batch taken before (whatever came between) is a duplicate.
   */
  public Future<LogAppend> acceptLogs(SqlClient client, String testId, Long seq) {
    return Sql.strings(client, STATUS, Tuple.of(testId)).compose(found -> {
      String status = found.isEmpty() ? null : found.get(0);
      if (!QuickTestStatus.DISPATCHED.wireName().equals(status) && !QuickTestStatus.RUNNING.wireName().equals(status)) {
        return Future.succeededFuture(LogAppend.NOT_ACTIVE);
      }
      if (seq == null) {
        return Future.succeededFuture(LogAppend.STORED);
      }
      return Sql.update(client, INSERT_BATCH, Tuple.of(testId, seq, Timestamps.now(), testId, seq))
          .map(n -> n == 1 ? LogAppend.STORED : LogAppend.DUPLICATE);
    });
  }
}
