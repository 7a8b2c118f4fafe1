package dev.svc.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.server.db.SqlDatabase;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rows mapped to records at the store's edge, against the real schema in SQLite. */
class RowsTest {

  record Sample(String agentName, Integer campaignRow, Long lastLogSeq, Double gpuUtilizationPct, Number ramGb,
      boolean isTestAgent, long total, String notSelected) {
  }

  record Unmappable(java.time.Instant createdAt) {
  }

  @TempDir
  Path dir;
  private Vertx vertx;
  private SqlDatabase db;

  @BeforeEach
  void open() {
    vertx = Vertx.vertx();
    db = SqlDatabase.open(vertx, SqlDatabase.sqliteUrl(dir.resolve("svc.db"))).await();
  }

  @AfterEach
  void close() {
    db.close().await();
    vertx.close().await();
  }

  @Test
  void eachComponentTakesTheColumnOfItsSnakeCaseNameAndAnUnselectedOneIsNull() {
    List<Sample> rows = Sql.rows(db.pool(), "SELECT 'gpu-1' AS agent_name, 3 AS campaign_row, 9 AS last_log_seq,"
        + " 2.5 AS gpu_utilization_pct, 15.5 AS ram_gb, 1 AS is_test_agent, 7 AS total", Tuple.tuple(), Sample.class)
        .await();
    assertThat(rows).hasSize(1);
    Sample row = rows.get(0);
    assertThat(row.ramGb().doubleValue()).as("a Number keeps the driver's value").isEqualTo(15.5);
    assertThat(row).isEqualTo(new Sample("gpu-1", 3, 9L, 2.5, row.ramGb(), true, 7L, null));

    Sample empty = Sql.rows(db.pool(), "SELECT NULL AS agent_name, NULL AS is_test_agent, NULL AS total",
        Tuple.tuple(), Sample.class).await().get(0);
    assertThat(empty).isEqualTo(new Sample(null, null, null, null, null, false, 0L, null));
  }

  @Test
  void aRecordWithATypeNoColumnGivesIsRefused() {
    assertThatThrownBy(() -> Sql.rows(db.pool(), "SELECT 'x' AS created_at", Tuple.tuple(), Unmappable.class).await())
        .hasMessageContaining("Unmappable.createdAt").hasMessageContaining("Instant");
  }

  /** A component that names no column would be null forever: each one is a column of its table or of the join. */
  @Test
  void everyComponentOfAStoredRowNamesAColumn() {
    Map<Class<? extends Record>, Set<String>> columns = Map.of(
        StoredAgent.class, columns("agents"),
        StoredQuickTest.class, columns("quick_tests", "agent_name", "agent_deleted_at", "agent_is_test",
            "agent_last_heartbeat_at"),
        StoredCampaign.class, columns("campaigns", "agent_name", "agent_deleted_at"),
        StoredResult.class, columns("results"),
        StoredEvent.class, columns("events"),
        StoredSetting.class, columns("agent_settings"),
        CommandStore.StoredCommand.class, columns("commands"),
        ListCounts.ListCount.class, columns("list_counts"),
        ClaimStore.Claim.class, columns("claims"));
    columns.forEach((type, known) -> assertThat(Arrays.stream(type.getRecordComponents())
        .map(c -> Rows.snakeCase(c.getName())).toList()).as(type.getSimpleName()).isSubsetOf(known));
  }

  private Set<String> columns(String table, String... joined) {
    Set<String> out = new HashSet<>(Sql.strings(db.pool(), "SELECT name FROM pragma_table_info(?)", Tuple.of(table))
        .await());
    assertThat(out).as(table).isNotEmpty();
    out.addAll(List.of(joined));
    return out;
  }
}
