package dev.svc.server.store;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs prepared statements and maps rows to records ({@link Rows}) or to JSON objects keyed by lower-case column names. */
public final class Sql {

  private Sql() {
  }

  static Future<List<JsonObject>> rows(SqlClient client, String sql, Tuple params) {
    return client.preparedQuery(sql).execute(params).map(Sql::toJson);
  }

  static Future<Optional<JsonObject>> row(SqlClient client, String sql, Tuple params) {
    return rows(client, sql, params).map(list -> list.isEmpty() ? Optional.empty() : Optional.of(list.get(0)));
  }

  static <R extends Record> Future<List<R>> rows(SqlClient client, String sql, Tuple params, Class<R> type) {
    return client.preparedQuery(sql).execute(params).map(rs -> Rows.as(rs, type));
  }

  static <R extends Record> Future<Optional<R>> row(SqlClient client, String sql, Tuple params, Class<R> type) {
    return rows(client, sql, params, type).map(list -> list.isEmpty() ? Optional.empty() : Optional.of(list.get(0)));
  }

  /** The first column of each row, as text. */
  static Future<List<String>> strings(SqlClient client, String sql, Tuple params) {
    return client.preparedQuery(sql).execute(params).map(rs -> {
      List<String> out = new ArrayList<>(rs.size());
      for (Row row : rs) {
        Object value = row.getValue(0);
        out.add(value == null ? null : value.toString());
      }
      return out;
    });
  }

  static Future<Integer> update(SqlClient client, String sql, Tuple params) {
    return client.preparedQuery(sql).execute(params).map(RowSet::rowCount);
  }

  static Future<Long> count(SqlClient client, String sql, Tuple params) {
    return client.preparedQuery(sql).execute(params).map(rs -> {
      Row row = rs.iterator().next();
      Object value = row.getValue(0);
      return value == null ? 0L : ((Number) value).longValue();
    });
  }

  static List<JsonObject> toJson(RowSet<Row> rows) {
    List<JsonObject> out = new ArrayList<>();
    for (Row row : rows) {
      JsonObject json = new JsonObject();
      for (int i = 0; i < row.size(); i++) {
        json.put(row.getColumnName(i).toLowerCase(java.util.Locale.ROOT), row.getValue(i));
      }
      out.add(json);
    }
    return out;
  }

  /**
   * Whether a statement failed on a unique index or primary key (SQLite's UNIQUE/PRIMARY KEY
   * constraint, PostgreSQL's SQLState 23505): the database refused a second row where one may exist.
   */
  public static boolean isUniqueViolation(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.sql.SQLException) {
        java.sql.SQLException e = (java.sql.SQLException) t;
        if ("23505".equals(e.getSQLState())) {
          return true;
        }
      }
      String message = t.getMessage();
      if (message != null && (message.contains("UNIQUE constraint failed")
          || message.contains("PRIMARY KEY constraint failed") || message.contains("SQLITE_CONSTRAINT_UNIQUE"))) {
        return true;
      }
    }
    return false;
  }

  /** A SQL boolean stored as INTEGER 0/1. */
  static int flag(boolean value) {
    return value ? 1 : 0;
  }

}
