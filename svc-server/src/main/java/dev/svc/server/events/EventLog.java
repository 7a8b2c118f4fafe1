package dev.svc.server.events;

import dev.svc.core.events.EventAddresses;
import io.vertx.core.Future;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;

/** Appends events through the event-log verticle, which numbers, stores and publishes them in order. */
public final class EventLog {

  private final EventBus bus;

  public EventLog(EventBus bus) {
    this.bus = bus;
  }

  /** Completes with the stored event once it is persisted and published. */
  public Future<JsonObject> append(String sourceId, String type, JsonObject data) {
    return bus.<JsonObject>request(EventAddresses.PUBLISH,
        new JsonObject().put("source_id", sourceId).put("type", type).put("data", data))
        .map(reply -> reply.body());
  }
}
