package dev.svc.server.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.LoggedEvent;
import dev.svc.core.events.PublishRequest;
import dev.svc.server.TestServer;
import dev.svc.server.db.SqlDatabase;
import dev.svc.server.store.EventStore;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another Vert.x program stores an event through {@code svc.events.publish}: it is numbered, replied
 * and listed like the server's own; a request without a source or type is refused with a sentence
 * and stores nothing.
 */
class PublishDoorTest {

  @TempDir
  Path home;

  private TestServer server;

  @BeforeEach
  void start() {
    server = TestServer.start(home, new TestServer.Options().insecure());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aPublishedEventIsStoredNumberedAndListed() {
    JsonObject data = new JsonObject().put("note", "from an integration");
    Message<JsonObject> reply = server.vertx().eventBus().<JsonObject>request(EventAddresses.PUBLISH,
        new PublishRequest("integration-1", "note", data).toJson()).await();
    JsonObject stored = reply.body();
    assertThat(stored.getLong("id")).isPositive();
    assertThat(stored.getString("source_id")).isEqualTo("integration-1");
    assertThat(stored.getJsonObject("data")).isEqualTo(data);

    List<LoggedEvent> listed = stored("integration-1");
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).toJson()).isEqualTo(stored);
  }

  @Test
  void aRequestWithoutSourceOrTypeIsRefused() {
    assertThatThrownBy(() -> server.vertx().eventBus().request(EventAddresses.PUBLISH,
        new JsonObject().put("type", "note")).await())
        .isInstanceOfSatisfying(ReplyException.class, e -> assertThat(e.failureCode()).isEqualTo(400))
        .hasMessage("Field 'source_id' is required");
    assertThatThrownBy(() -> server.vertx().eventBus().request(EventAddresses.PUBLISH,
        new JsonObject().put("source_id", "integration-2").put("data", "text")).await())
        .hasMessage("Field 'data' must be an object");
    assertThat(stored("integration-2")).isEmpty();
  }

  private List<LoggedEvent> stored(String sourceId) {
    SqlDatabase db = server.running().database();
    return new EventStore(db.pool(), db.postgres()).afterForSource(sourceId, 0, 100).await();
  }
}
