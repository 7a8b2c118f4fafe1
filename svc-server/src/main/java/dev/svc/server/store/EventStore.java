package dev.svc.server.store;

import dev.svc.core.Timestamps;
import dev.svc.core.events.EventType;
import dev.svc.core.events.LoggedEvent;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The numbered event log table: events are stored with increasing ids and read back after an id.
 * A log line of a quick test or a campaign is stored here and nowhere else: it is the {@code log}
 * event of its source, and the logs the API serves are those events.
 */
public final class EventStore {

  /** Rows per INSERT: four parameters each, far below SQLite's and PostgreSQL's parameter limits. */
  static final int ROWS_PER_INSERT = 250;

  private static final String COLUMNS = "SELECT id, source_id, type, data, created_at FROM events";
  private static final String AFTER = COLUMNS + " WHERE id > ? ORDER BY id LIMIT ?";
  private static final String SOURCE_AFTER = COLUMNS + " WHERE source_id = ? AND id > ? ORDER BY id LIMIT ?";
  private static final String LAST = "SELECT MAX(id) FROM events";
  private static final String LINES = "SELECT id, created_at, data FROM events WHERE source_id = ? AND type = '"
      + EventType.LOG + "' AND id > ? ORDER BY id LIMIT ?";
  private static final String LINE_COUNT = "SELECT COUNT(*) FROM events WHERE source_id = ? AND type = '"
      + EventType.LOG + "'";

  private final Pool pool;
  private final boolean postgres;

  /** {@code postgres}: the database is PostgreSQL (else SQLite); they return new ids differently. */
  public EventStore(Pool pool, boolean postgres) {
    this.pool = pool;
    this.postgres = postgres;
  }

  /** Stores an event; returns it as published. */
  public Future<LoggedEvent> insert(String sourceId, String type, JsonObject data) {
    return insert(pool, List.of(new Event(sourceId, type, data))).map(stored -> stored.get(0));
  }

  /**
   * Stores events through {@code client} (a transaction's connection), in their order, with one
   * statement per {@value #ROWS_PER_INSERT} events; returns them as published, in id order.
   */
  public Future<List<LoggedEvent>> insert(SqlClient client, List<Event> events) {
    if (events.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    String now = Timestamps.now();
    List<LoggedEvent> stored = new ArrayList<>(events.size());
    Future<Void> chain = Future.succeededFuture();
    for (int from = 0; from < events.size(); from += ROWS_PER_INSERT) {
      List<Event> chunk = events.subList(from, Math.min(events.size(), from + ROWS_PER_INSERT));
      chain = chain.compose(v -> insertChunk(client, chunk, now, stored));
    }
    return chain.map(v -> stored);
  }

  private Future<Void> insertChunk(SqlClient client, List<Event> chunk, String now, List<LoggedEvent> stored) {
    Tuple params = Tuple.tuple();
    for (Event event : chunk) {
      params.addString(event.sourceId()).addString(event.type()).addString(event.data().encode()).addString(now);
    }
    return client.preparedQuery(insertSql(chunk.size())).execute(params).map(rows -> {
      List<Long> ids = new ArrayList<>(chunk.size());
      for (Row row : rows) {
        ids.add(row.getLong(0));
      }
      if (ids.size() != chunk.size()) {
        throw new IllegalStateException("The database returned " + ids.size() + " ids for " + chunk.size() + " new events");
      }
      // ids come back in insertion order on both databases; sorting makes that an explicit guarantee
      Collections.sort(ids);
      for (int i = 0; i < chunk.size(); i++) {
        Event event = chunk.get(i);
        stored.add(new LoggedEvent(ids.get(i), event.sourceId(), event.type(), event.data(), now));
      }
      return null;
    });
  }

  /**
   * One multi-row INSERT that answers the new ids as rows: SQLite returns RETURNING rows itself;
   * through vertx-jdbc, PostgreSQL's RETURNING rows arrive as generated keys of which only the
   * first is exposed, so there the INSERT is wrapped in a query.
   */
  private String insertSql(int rows) {
    StringBuilder sql = new StringBuilder("INSERT INTO events (source_id, type, data, created_at) VALUES ");
    for (int i = 0; i < rows; i++) {
      sql.append(i == 0 ? "(?, ?, ?, ?)" : ", (?, ?, ?, ?)");
    }
    sql.append(" RETURNING id");
    return postgres ? "WITH inserted AS (" + sql + ") SELECT id FROM inserted ORDER BY id" : sql.toString();
  }

  public Future<List<LoggedEvent>> after(long id, int limit) {
    return Sql.rows(pool, AFTER, Tuple.of(id, limit), StoredEvent.class).map(EventStore::decode);
  }

  public Future<List<LoggedEvent>> afterForSource(String sourceId, long id, int limit) {
    return Sql.rows(pool, SOURCE_AFTER, Tuple.of(sourceId, id, limit), StoredEvent.class).map(EventStore::decode);
  }

  /** The id of the newest event, 0 when there is none. */
  public Future<Long> lastId() {
    return Sql.count(pool, LAST, Tuple.tuple());
  }

  /** The log lines of a test or campaign after {@code afterId}, in order. */
  public Future<List<LogLine>> lines(String sourceId, long afterId, int limit) {
    return Sql.rows(pool, LINES, Tuple.of(sourceId, afterId, limit), StoredEvent.class).map(rows -> rows.stream()
        .map(r -> {
          JsonObject data = StoredJson.object(r.data());
          return new LogLine(r.id(), r.createdAt(), data == null ? null : data.getString("line"));
        }).toList());
  }

  /** How many log lines a test or campaign has stored. */
  public Future<Long> lineCount(String sourceId) {
    return Sql.count(pool, LINE_COUNT, Tuple.of(sourceId));
  }

  private static List<LoggedEvent> decode(List<StoredEvent> rows) {
    List<LoggedEvent> events = new ArrayList<>(rows.size());
    for (StoredEvent r : rows) {
      events.add(new LoggedEvent(r.id(), r.sourceId(), r.type(), StoredJson.object(r.data()), r.createdAt()));
    }
    return events;
  }
}
