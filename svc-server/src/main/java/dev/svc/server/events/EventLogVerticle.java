package dev.svc.server.events;

import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.PublishRequest;
import dev.svc.core.protocol.BadMessage;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;

/**
 * The event bus's door to the event log ({@link EventAddresses#PUBLISH}) for other Vert.x programs:
 * each request is stored with the next id and published by {@link EventLog}, in order with the
 * server's own writes.
 */
public final class EventLogVerticle extends VerticleBase {

  private final EventLog log;

  public EventLogVerticle(EventLog log) {
    this.log = log;
  }

  @Override
  public Future<?> start() {
    return vertx.eventBus().<JsonObject>consumer(EventAddresses.PUBLISH, message -> {
      PublishRequest request;
      try {
        request = PublishRequest.parse(message.body() == null ? new JsonObject() : message.body());
      } catch (BadMessage e) {
        message.fail(400, e.getMessage());
        return;
      }
      log.append(request.sourceId(), request.type(), request.data())
          .onComplete(ar -> {
            if (ar.succeeded()) {
              message.reply(ar.result().toJson());
            } else {
              message.fail(500, "Event not stored: " + ar.cause().getMessage());
            }
          });
    }).completion();
  }
}
