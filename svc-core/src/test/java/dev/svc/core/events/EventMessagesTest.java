package dev.svc.core.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * The messages of docs/events.md parse back to what toJson wrote, take the shapes that document
 * gives, and refuse a message without what it must name.
 */
class EventMessagesTest {

  @Test
  void aLoggedEventReadsAsPublished() {
    JsonObject published = new JsonObject("{\"id\":42,\"source_id\":\"t1\",\"type\":\"status\","
        + "\"data\":{\"test_id\":\"t1\",\"status\":\"failed\",\"error\":\"boom\"},\"created_at\":\"2026-11-28T10:00:00Z\"}");
    LoggedEvent event = LoggedEvent.parse(published);
    assertThat(event.id()).isEqualTo(42);
    assertThat(event.status()).isEqualTo("failed");
    assertThat(event.error()).isEqualTo("boom");
    assertThat(event.line()).as("not a log event").isNull();
    assertThat(event.toJson()).isEqualTo(published);

    LoggedEvent line = new LoggedEvent(43, "t1", EventType.LOG, new JsonObject().put("line", "hello"), null);
    assertThat(line.line()).isEqualTo("hello");
    assertThat(line.status()).isNull();
    assertThat(LoggedEvent.parse(line.toJson())).isEqualTo(line);
    assertThat(new LoggedEvent(44, "t1", EventType.STATUS, new JsonObject().put("status", 7), null).status())
        .as("a status of another kind is none").isNull();
    assertThat(new LoggedEvent(45, "a1", "agent_status", null, null).data()).isEqualTo(new JsonObject());
  }

  @Test
  void aCopyHasItsOwnData() {
    LoggedEvent event = new LoggedEvent(1, "s", "note", new JsonObject().put("k", 1), null);
    LoggedEvent copy = event.copy();
    copy.data().put("k", 2);
    assertThat(event.data().getInteger("k")).isEqualTo(1);
  }

  @Test
  void whatAMessageMustNameIsRequired() {
    assertThatThrownBy(() -> LoggedEvent.parse(new JsonObject().put("source_id", "s").put("type", "x")))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'id' is required");
    assertThatThrownBy(() -> PublishRequest.parse(new JsonObject().put("source_id", "s")))
        .hasMessage("Field 'type' is required");
    assertThat(PublishRequest.parse(new JsonObject().put("source_id", "s").put("type", "note")).data())
        .isEqualTo(new JsonObject());
    assertThatThrownBy(() -> CampaignSignal.parse(new JsonObject())).hasMessage("Field 'campaign_id' is required");
    assertThatThrownBy(() -> SimulationRequest.parse(new JsonObject().put("test_id", " ")))
        .hasMessage("Field 'test_id' is required");
    assertThat(CampaignSignal.parse(new CampaignSignal("c1").toJson())).isEqualTo(new CampaignSignal("c1"));
    assertThat(SimulationRequest.parse(new SimulationRequest("t1").toJson())).isEqualTo(new SimulationRequest("t1"));
  }
}
