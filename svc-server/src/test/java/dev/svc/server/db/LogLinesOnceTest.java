package dev.svc.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.EventLoops;
import dev.svc.server.events.EventLog;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.faults.ThrowawayPostgres;
import dev.svc.server.store.LogLine;
import dev.svc.server.store.Event;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.QuickTestStore.LogAppend;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.jdbcclient.JDBCPool;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log line is stored once, as the log event of its test or campaign, on SQLite and on PostgreSQL:
 * a batch of 100 lines costs three statements (the test's status, the batch's seq, one INSERT of
 * the lines), and the upgrade from the two line tables keeps every line once, in order.
 */
class LogLinesOnceTest {

  private static ThrowawayPostgres postgres;

  @TempDir
  Path dir;

  @BeforeAll
  static void startPostgres() throws Exception {
    postgres = ThrowawayPostgres.start();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    postgres.close();
  }

  @Test
  @Timeout(120)
  void aHundredLineBatchCostsThreeStatementsOnSqlite() throws Exception {
    hundredLineBatch(SqlDatabase.sqliteUrl(dir.resolve("svc.db")), false);
  }

  @Test
  @Timeout(120)
  void aHundredLineBatchCostsThreeStatementsOnPostgres() throws Exception {
    hundredLineBatch(database("batch"), true);
  }

  @Test
  @Timeout(120)
  void theUpgradeKeepsEveryLineOnceInOrderOnSqlite() throws Exception {
    upgrade(SqlDatabase.sqliteUrl(dir.resolve("old.db")), "t1");
  }

  @Test
  @Timeout(120)
  void theUpgradeKeepsEveryLineOnceInOrderOnPostgres() throws Exception {
    upgrade(database("upgrade"), "t2");
  }

  private void hundredLineBatch(String url, boolean isPostgres) throws Exception {
    String testId = isPostgres ? "batch-pg" : "batch-sqlite";
    try (Connection c = SqlDatabase.dataSource(url).getConnection(); Statement st = c.createStatement()) {
      Migrations.update(c);
      c.setAutoCommit(true);
      st.executeUpdate("INSERT INTO quick_tests (id, agent_id, model_path, engine_name, status, created_at)"
          + " VALUES ('" + testId + "', 'a1', '/models/m', 'vllm', 'running', '2026-01-01T00:00:00.000Z')");
    }
    AtomicInteger statements = new AtomicInteger();
    Vertx vertx = Vertx.vertx();
    Pool pool = JDBCPool.pool(vertx, counting(new AutoCommitRestoringDataSource(SqlDatabase.dataSource(url)), statements),
        new PoolOptions().setMaxSize(1));
    try {
      EventStore store = new EventStore(pool, isPostgres);
      EventLog events = new EventLog(vertx, pool, store, EventLoops.contexts(vertx, 1).await().get(0));
      QuickTestStore tests = new QuickTestStore(pool);
      List<String> lines = IntStream.range(0, 100).mapToObj(i -> "line " + i).toList();

      statements.set(0);
      LogAppend first = events.write(conn -> tests.acceptLogs(conn, testId, 7L)
          .map(outcome -> Written.of(outcome, lines.stream().map(line -> Event.testLog(testId, line)).toList())))
          .await();
      int firstCost = statements.get();
      statements.set(0);
      LogAppend retry = events.write(conn -> tests.acceptLogs(conn, testId, 7L)
          .map(outcome -> outcome == LogAppend.STORED
              ? Written.of(outcome, lines.stream().map(line -> Event.testLog(testId, line)).toList())
              : Written.of(outcome)))
          .await();
      int retryCost = statements.get();

      assertThat(first).isEqualTo(LogAppend.STORED);
      assertThat(firstCost).as("statements for a 100-line batch").isBetween(1, 3);
      assertThat(retry).isEqualTo(LogAppend.DUPLICATE);
      assertThat(retryCost).as("statements for a retried batch").isBetween(1, 2);
      List<LogLine> stored = store.lines(testId, 0, 1000).await();
      assertThat(stored).extracting(LogLine::line).isEqualTo(lines);
      List<Long> ids = stored.stream().map(LogLine::id).toList();
      assertThat(ids).isSorted().doesNotHaveDuplicates();
      assertThat(store.afterForSource(testId, 0, 1000).await()).hasSize(100)
          .allSatisfy(e -> assertThat(e.type()).isEqualTo("log"));
    } finally {
      pool.close().await();
      vertx.close().await();
    }
  }

  private void upgrade(String url, String prefix) throws Exception {
    String same = prefix + "-same";
    String gone = prefix + "-gone";
    String part = prefix + "-part";
    String campaign = prefix + "-campaign";
    String campaignKept = prefix + "-campaign-kept";
    List<Long> sameIds = new ArrayList<>();
    try (Connection c = SqlDatabase.dataSource(url).getConnection(); Statement st = c.createStatement()) {
      assertThat(Migrations.updateTo(c, 15)).isPositive();
      c.setAutoCommit(true);
      // a test whose events are all there, one whose events retention took, one whose older events it took
      for (String test : List.of(same, gone, part)) {
        for (int i = 1; i <= 3; i++) {
          st.executeUpdate("INSERT INTO quick_test_logs (test_id, line, created_at) VALUES ('" + test + "', '" + test
              + " line " + i + "', '2026-01-01T00:00:0" + i + ".000Z')");
        }
      }
      for (int i = 1; i <= 3; i++) {
        sameIds.add(insertLogEvent(st, same, "test_id", same + " line " + i));
      }
      insertLogEvent(st, "unrelated", "test_id", "not a line of these tests");
      insertLogEvent(st, part, "test_id", part + " line 3");
      for (int i = 1; i <= 2; i++) {
        st.executeUpdate("INSERT INTO campaign_logs (campaign_id, line, created_at) VALUES ('" + campaign + "', '[1/1] it''s "
            + i + "', '2026-01-01T00:00:0" + i + ".000Z')");
      }
      st.executeUpdate("INSERT INTO campaign_logs (campaign_id, line, created_at) VALUES ('" + campaignKept
          + "', 'kept', '2026-01-01T00:00:00.000Z')");
      insertLogEvent(st, campaignKept, "campaign_id", "kept");

      assertThat(Migrations.update(c)).isPositive();

      Map<String, List<String>> lines = new LinkedHashMap<>();
      Map<String, String> keys = new LinkedHashMap<>();
      try (ResultSet rows = st.executeQuery("SELECT source_id, data FROM events WHERE type = 'log' ORDER BY id")) {
        while (rows.next()) {
          JsonObject data = new JsonObject(rows.getString(2));
          lines.computeIfAbsent(rows.getString(1), k -> new ArrayList<>()).add(data.getString("line"));
          keys.put(rows.getString(1), data.containsKey("test_id") ? data.getString("test_id") : data.getString("campaign_id"));
        }
      }
      for (String test : List.of(same, gone, part)) {
        assertThat(lines.get(test)).as(test).containsExactly(test + " line 1", test + " line 2", test + " line 3");
        assertThat(keys.get(test)).isEqualTo(test);
      }
      assertThat(lines.get(campaign)).containsExactly("[1/1] it's 1", "[1/1] it's 2");
      assertThat(keys.get(campaign)).isEqualTo(campaign);
      assertThat(lines.get(campaignKept)).containsExactly("kept");
      assertThat(lines.get("unrelated")).containsExactly("not a line of these tests");
      List<Long> sameAfter = new ArrayList<>();
      try (ResultSet rows = st.executeQuery("SELECT id FROM events WHERE source_id = '" + same + "' ORDER BY id")) {
        while (rows.next()) {
          sameAfter.add(rows.getLong(1));
        }
      }
      assertThat(sameAfter).as("a test whose events were all there keeps them").isEqualTo(sameIds);
      for (String table : Set.of("quick_test_logs", "campaign_logs")) {
        try (ResultSet rows = c.getMetaData().getTables(null, null, table, null)) {
          assertThat(rows.next()).as(table + " is gone").isFalse();
        }
      }
    }
  }

  /** A database of its own in the test's PostgreSQL cluster. */
  private static String database(String name) throws SQLException {
    return postgres.newDatabase(name);
  }

  private static long insertLogEvent(Statement st, String source, String key, String line) throws SQLException {
    st.executeUpdate("INSERT INTO events (source_id, type, data, created_at) VALUES ('" + source + "', 'log', '"
        + new JsonObject().put(key, source).put("line", line).encode().replace("'", "''")
        + "', '2026-01-01T00:00:00.000Z')");
    try (ResultSet rows = st.executeQuery("SELECT MAX(id) FROM events")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** A data source whose connections count the statements they prepare or create (one per execution here). */
  private static DataSource counting(DataSource delegate, AtomicInteger statements) {
    return (DataSource) Proxy.newProxyInstance(LogLinesOnceTest.class.getClassLoader(), new Class<?>[] {DataSource.class},
        (proxy, method, args) -> {
          Object value = invoke(delegate, method, args);
          if (value instanceof Connection connection) {
            return countingConnection(connection, statements);
          }
          return value;
        });
  }

  private static Connection countingConnection(Connection delegate, AtomicInteger statements) {
    return (Connection) Proxy.newProxyInstance(LogLinesOnceTest.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("prepareStatement") || name.equals("createStatement") || name.equals("prepareCall")) {
            statements.incrementAndGet();
          }
          return invoke(delegate, method, args);
        });
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
