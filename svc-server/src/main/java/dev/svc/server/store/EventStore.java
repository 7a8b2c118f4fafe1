package dev.svc.server.store;

import dev.svc.core.Timestamps;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.jdbcclient.JDBCPool;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/** The numbered event log table: events are stored with increasing ids and read back after an id. */
public final class EventStore {

  private static final String INSERT = "INSERT INTO events (source_id, type, data, created_at) VALUES (?, ?, ?, ?) RETURNING id";
  private static final String COLUMNS = "SELECT id, source_id, type, data, created_at FROM events";
  private static final String AFTER = COLUMNS + " WHERE id > ? ORDER BY id LIMIT ?";
  private static final String SOURCE_AFTER = COLUMNS + " WHERE source_id = ? AND id > ? ORDER BY id LIMIT ?";
  private static final String LAST = "SELECT MAX(id) FROM events";

  private final Pool pool;

  public EventStore(Pool pool) {
    this.pool = pool;
  }

  /** Stores an event; returns it as published: {@code {"id","source_id","type","data","created_at"}}. */
  public Future<JsonObject> insert(String sourceId, String type, JsonObject data) {
    return insert(pool, sourceId, type, data);
  }

  /** Stores an event through {@code client} (a transaction's connection). */
  public Future<JsonObject> insert(SqlClient client, String sourceId, String type, JsonObject data) {
    String now = Timestamps.now();
    return client.preparedQuery(INSERT).execute(Tuple.of(sourceId, type, data.encode(), now)).map(rows -> {
      // SQLite's driver returns the RETURNING row; PostgreSQL's, through vertx-jdbc, the generated keys
      Row row = rows.iterator().hasNext() ? rows.iterator().next() : rows.property(JDBCPool.GENERATED_KEYS);
      if (row == null) {
        throw new IllegalStateException("The database returned no id for a new event");
      }
      return new JsonObject().put("id", row.getLong(0)).put("source_id", sourceId).put("type", type)
          .put("data", data).put("created_at", now);
    });
  }

  public Future<List<JsonObject>> after(long id, int limit) {
    return Sql.rows(pool, AFTER, Tuple.of(id, limit)).map(EventStore::decode);
  }

  public Future<List<JsonObject>> afterForSource(String sourceId, long id, int limit) {
    return Sql.rows(pool, SOURCE_AFTER, Tuple.of(sourceId, id, limit)).map(EventStore::decode);
  }

  /** The id of the newest event, 0 when there is none. */
  public Future<Long> lastId() {
    return Sql.count(pool, LAST, Tuple.tuple());
  }

  private static List<JsonObject> decode(List<JsonObject> rows) {
    rows.forEach(r -> {
      JsonObject data = StoredJson.object(r.getString("data"));
      r.put("data", data == null ? new JsonObject() : data);
    });
    return rows;
  }
}
