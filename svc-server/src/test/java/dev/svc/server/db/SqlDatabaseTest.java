package dev.svc.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the pool writes is committed: seen by another connection, not only by the pool's own. */
class SqlDatabaseTest {

  @TempDir
  Path dir;

  @Test
  void writesAfterATransactionAreCommitted() throws Exception {
    String url = SqlDatabase.sqliteUrl(dir.resolve("svc.db"));
    Vertx vertx = Vertx.vertx();
    try {
      SqlDatabase db = SqlDatabase.open(vertx, url).await();
      String insert = "INSERT INTO settings (key, value) VALUES (?, ?)";
      db.pool().preparedQuery(insert).execute(Tuple.of("before", "1")).await();
      db.pool().withTransaction(c -> c.preparedQuery(insert).execute(Tuple.of("inside", "2"))).await();
      db.pool().withTransaction(c -> c.preparedQuery(insert).execute(Tuple.of("rolled-back", "3"))
          .compose(r -> Future.failedFuture("roll back"))).otherwiseEmpty().await();
      db.pool().preparedQuery(insert).execute(Tuple.of("after", "4")).await();

      List<String> seen = new ArrayList<>();
      try (Connection other = DriverManager.getConnection(url);
           ResultSet rs = other.createStatement().executeQuery("SELECT key FROM settings ORDER BY value")) {
        while (rs.next()) {
          seen.add(rs.getString(1));
        }
      }
      assertThat(seen).containsExactly("before", "inside", "after");
    } finally {
      vertx.close().await();
    }
  }
}
