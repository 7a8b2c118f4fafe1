package dev.svc.server.store;

import dev.svc.core.Timestamps;
import dev.svc.core.domain.CampaignStatus;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.Optional;

/** Campaigns, their status moves and their stored log lines. */
public final class CampaignStore {

  private static final String SELECT = "SELECT c.*, a.name AS agent_name, a.deleted_at AS agent_deleted_at FROM campaigns c LEFT JOIN agents a ON a.id = c.agent_id";
  private static final String BY_ID = SELECT + " WHERE c.id = ?";
  private static final String INSERT = "INSERT INTO campaigns (id, name, description, agent_id, config, status, total_runs,"
      + " succeeded, failed, skipped, created_at) VALUES (?,?,?,?,?,?,?,0,0,0,?)";
  private static final String MOVE = "UPDATE campaigns SET status = ?, started_at = COALESCE(?, started_at),"
      + " completed_at = ? WHERE id = ? AND status = ?";
  /** A deleted campaign's events, its log lines among them, go with it: no stream replays its log any more. */
  private static final String DELETE_EVENTS = "DELETE FROM events WHERE source_id = ?";
  private static final String DELETE = "DELETE FROM campaigns WHERE id = ? AND status <> 'running'";
  private static final String TESTS = "SELECT id, campaign_row, model_path, engine_name, benchmark_name, suite_name,"
      + " status, error, result_id, created_at, completed_at FROM quick_tests WHERE campaign_id = ?"
      + " ORDER BY campaign_row, created_at, id";
  private static final String BY_STATUS = SELECT + " WHERE c.status = ? ORDER BY c.created_at, c.id";
  private static final String COUNTERS = "UPDATE campaigns SET succeeded = ?, failed = ?, skipped = ? WHERE id = ?";

  private final Pool pool;
  private final ListCounts counts;

  public CampaignStore(Pool pool) {
    this.pool = pool;
    this.counts = new ListCounts(pool);
  }

  public Future<Void> insert(SqlClient client, String id, String name, String description, String agentId,
      JsonObject config, int totalRuns) {
    return Sql.update(client, INSERT, Tuple.tuple().addValue(id).addValue(name).addValue(description).addValue(agentId)
        .addValue(config.encode()).addValue(CampaignStatus.DRAFT.wireName()).addValue(totalRuns)
        .addValue(Timestamps.now())).mapEmpty();
  }

  public Future<Optional<StoredCampaign>> byId(String id) {
    return Sql.row(pool, BY_ID, Tuple.of(id), StoredCampaign.class);
  }

  public Future<Page<StoredCampaign>> list(String status, int limit, int offset) {
    return list(status, limit, offset, null);
  }

  /** A page of campaigns, newest first, past {@code offset} or right after {@code after}; totals from {@link ListCounts}. */
  public Future<Page<StoredCampaign>> list(String status, int limit, int offset, Cursor after) {
    Filters f = new Filters().where("c.status = ?", status);
    return counts.total(ListCounts.CAMPAIGNS, status == null || status.isEmpty() ? null : status, false, true, null, null)
        .compose(total -> Sql.rows(pool, f.pageSql(SELECT, "FROM campaigns c", "c.created_at", "c.id", after),
            f.pageParams(after, limit, offset), StoredCampaign.class)
            .map(rows -> Filters.page(rows, limit, total, c -> new Cursor(c.createdAt(), c.id()))));
  }

  public Future<Boolean> move(SqlClient client, String id, CampaignStatus from, CampaignStatus to) {
    String now = Timestamps.now();
    return Sql.update(client, MOVE, Tuple.tuple().addValue(to.wireName())
        .addValue(to == CampaignStatus.RUNNING ? now : null)
        .addValue(to == CampaignStatus.COMPLETED || to == CampaignStatus.FAILED || to == CampaignStatus.CANCELLED ? now : null)
        .addValue(id).addValue(from.wireName())).map(n -> n == 1);
  }

  /**
   * Deletes a campaign that is not running, with its events (its log lines among them), in the
   * caller's transaction (the event log's: it removes events).
   */
  public Future<Boolean> delete(SqlClient conn, String id) {
    return Sql.update(conn, DELETE, Tuple.of(id)).compose(n -> n == 0
        ? Future.succeededFuture(false)
        : Sql.update(conn, DELETE_EVENTS, Tuple.of(id)).map(x -> true));
  }

  /** Campaigns in a status, oldest first (the executor resumes running ones after a restart). */
  public Future<List<StoredCampaign>> withStatus(CampaignStatus status) {
    return Sql.rows(pool, BY_STATUS, Tuple.of(status.wireName()), StoredCampaign.class);
  }

  public Future<Void> counters(String id, int succeeded, int failed, int skipped) {
    return Sql.update(pool, COUNTERS, Tuple.of(succeeded, failed, skipped, id)).mapEmpty();
  }

  /** The campaign's quick tests, in row order: the columns a campaign's table shows. */
  public Future<List<StoredQuickTest>> tests(String campaignId) {
    return Sql.rows(pool, TESTS, Tuple.of(campaignId), StoredQuickTest.class);
  }
}
