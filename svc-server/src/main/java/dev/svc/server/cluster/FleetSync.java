package dev.svc.server.cluster;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.server.store.LiveFleet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every node's {@link LiveFleet} coherent: a change committed on one node (a token rotated, an
 * agent deleted, settings changed, a test queued, a command stored) is published on the clustered
 * event bus, and every other node reads what it touched again from the database. The database stays
 * the record; the message only says what to re-read, so a lost or late message costs a stale read
 * for milliseconds, never a wrong write (dispatch and status moves are conditional updates).
 */
public final class FleetSync {

  private static final Logger LOG = LoggerFactory.getLogger(FleetSync.class);

  /** Internal to the server's nodes: not for integrations. */
  static final String ADDRESS = "svc.internal.fleet";
  private static final int RETRIES = 5;
  private static final long RETRY_MS = 500;

  /** A change as it travels: which node made it, what it touched. */
  record FleetChange(String node, LiveFleet.Change change, String agentId, String name) {
    static FleetChange parse(JsonObject json) {
      String kind = Fields.requireString(json, "change");
      LiveFleet.Change change;
      try {
        change = LiveFleet.Change.valueOf(kind);
      } catch (IllegalArgumentException e) {
        throw new BadMessage("unknown fleet change '" + kind + "'");
      }
      return new FleetChange(Fields.requireString(json, "node"), change, Fields.requireString(json, "agent_id"),
          Fields.optString(json, "name", null));
    }

    JsonObject toJson() {
      return new JsonObject().put("node", node).put("change", change.name()).put("agent_id", agentId).put("name", name);
    }
  }

  private FleetSync() {
  }

  /** Applies a change, trying again a few times while the database does not answer. */
  private static void apply(Vertx vertx, LiveFleet fleet, Pool pool, FleetChange change, int attempt) {
    fleet.apply(pool, change.change(), change.agentId(), change.name()).onFailure(err -> {
      if (attempt >= RETRIES) {
        LOG.error("Fleet change {} of agent {} not applied after {} attempts: {}", change.change(), change.agentId(),
            attempt, err.toString());
        return;
      }
      vertx.setTimer(RETRY_MS * attempt, t -> apply(vertx, fleet, pool, change, attempt + 1));
    });
  }

  /** Publishes this node's changes and applies the others'; completes once the consumer is registered everywhere. */
  public static Future<MessageConsumer<JsonObject>> connect(Vertx vertx, LiveFleet fleet, Pool pool, String nodeId) {
    MessageConsumer<JsonObject> consumer = vertx.eventBus().consumer(ADDRESS, message -> {
      FleetChange change;
      try {
        change = FleetChange.parse(message.body());
      } catch (BadMessage e) {
        LOG.warn("Fleet change ignored: {}", e.getMessage());
        return;
      }
      if (!change.node().equals(nodeId)) {
        apply(vertx, fleet, pool, change, 1);
      }
    });
    fleet.tellPeers((change, agentId, name) -> {
      if (agentId != null) {
        vertx.eventBus().publish(ADDRESS, new FleetChange(nodeId, change, agentId, name).toJson());
      }
    });
    return consumer.completion().map(consumer);
  }
}
