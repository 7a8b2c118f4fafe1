package dev.svc.core.events;

import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;

/** {@code {"campaign_id"}}, sent to {@link EventAddresses#CAMPAIGN_LAUNCH} and {@link EventAddresses#CAMPAIGN_CANCEL}. */
public record CampaignSignal(String campaignId) {

  public static CampaignSignal parse(JsonObject json) {
    return new CampaignSignal(Fields.requireString(json, "campaign_id"));
  }

  public JsonObject toJson() {
    return new JsonObject().put("campaign_id", campaignId);
  }
}
