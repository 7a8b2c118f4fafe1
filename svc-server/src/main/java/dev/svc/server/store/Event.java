package dev.svc.server.store;

import dev.svc.core.events.EventType;
import io.vertx.core.json.JsonObject;

/** An event to store and publish: its source (a test, campaign or agent id), its type and its data. */
public record Event(String sourceId, String type, JsonObject data) {

  /** A log line of a quick test: the line is stored as this event and nowhere else. */
  public static Event testLog(String testId, String line) {
    return new Event(testId, EventType.LOG, new JsonObject().put("test_id", testId).put("line", line));
  }

  /** A log line of a campaign: the line is stored as this event and nowhere else. */
  public static Event campaignLog(String campaignId, String line) {
    return new Event(campaignId, EventType.LOG, new JsonObject().put("campaign_id", campaignId).put("line", line));
  }
}
