package dev.svc.server.events;

import dev.svc.core.events.EventAddresses;
import dev.svc.server.store.EventStore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * The one writer of the event log: stores each event with the next id, then publishes it on
 * {@code svc.events} and {@code svc.events.<source_id>}. Requests are handled one at a time, so
 * events are published in the order of their ids and a subscriber can resume by id.
 */
public final class EventLogVerticle extends VerticleBase {

  private final EventStore store;
  private final Queue<Message<JsonObject>> pending = new ArrayDeque<>();
  private boolean busy;

  public EventLogVerticle(EventStore store) {
    this.store = store;
  }

  @Override
  public Future<?> start() {
    return vertx.eventBus().<JsonObject>consumer(EventAddresses.PUBLISH, message -> {
      pending.add(message);
      drain();
    }).completion();
  }

  private void drain() {
    if (busy || pending.isEmpty()) {
      return;
    }
    busy = true;
    Message<JsonObject> message = pending.poll();
    JsonObject body = message.body();
    String sourceId = body.getString("source_id");
    String type = body.getString("type");
    JsonObject data = body.getJsonObject("data", new JsonObject());
    store.insert(sourceId, type, data).onComplete(ar -> {
      if (ar.succeeded()) {
        JsonObject event = ar.result();
        vertx.eventBus().publish(EventAddresses.ALL, event);
        vertx.eventBus().publish(EventAddresses.forSource(sourceId), event);
        message.reply(event);
      } else {
        message.fail(500, "Event not stored: " + ar.cause().getMessage());
      }
      busy = false;
      drain();
    });
  }
}
