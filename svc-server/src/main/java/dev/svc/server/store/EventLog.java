package dev.svc.server.store;

import dev.svc.core.Timestamps;
import dev.svc.core.events.EventAddresses;
import io.vertx.core.Future;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

/** The numbered event log: each event is stored with an increasing id, then published on the event bus. */
public final class EventLog {

  private static final String INSERT = "INSERT INTO events (source_id, type, data, created_at) VALUES (?, ?, ?, ?) RETURNING id";

  private final Pool pool;
  private final EventBus bus;

  public EventLog(Pool pool, EventBus bus) {
    this.pool = pool;
    this.bus = bus;
  }

  public Future<JsonObject> append(String sourceId, String type, JsonObject data) {
    String now = Timestamps.now();
    return Sql.row(pool, INSERT, Tuple.of(sourceId, type, data.encode(), now)).map(row -> {
      long id = row.orElseThrow().getLong("id");
      JsonObject event = new JsonObject().put("id", id).put("source_id", sourceId).put("type", type)
          .put("data", data).put("created_at", now);
      bus.publish(EventAddresses.ALL, event);
      bus.publish(EventAddresses.forSource(sourceId), event);
      return event;
    });
  }
}
