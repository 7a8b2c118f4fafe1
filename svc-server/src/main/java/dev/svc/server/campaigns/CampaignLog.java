package dev.svc.server.campaigns;

import dev.svc.core.events.EventType;
import dev.svc.server.events.EventLog.Event;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one campaign: each line is stored (campaign_logs) with its {@code log} event on the
 * campaign's source, in one transaction, strictly in the order the lines were given.
 */
final class CampaignLog {

  private static final Logger LOG = LoggerFactory.getLogger(CampaignLog.class);

  private final ApiContext api;
  private final String campaignId;
  private Future<Void> tail = Future.succeededFuture();

  CampaignLog(ApiContext api, String campaignId) {
    this.api = api;
    this.campaignId = campaignId;
  }

  /** Queues a line after those given before; completes once it is stored and published. */
  Future<Void> line(String line) {
    Future<Void> next = tail.transform(ignored -> api.events().write(conn -> api.campaigns().appendLog(conn, campaignId, line)
        .map(v -> Written.of((Void) null, new Event(campaignId, EventType.LOG,
            new JsonObject().put("campaign_id", campaignId).put("line", line)))))
        .onFailure(err -> LOG.warn("Campaign {}: log line not written: {}", campaignId, err.getMessage())));
    tail = next;
    return next;
  }

  /** Completes when every line given so far was written (or failed to be). */
  Future<Void> flushed() {
    return tail.otherwiseEmpty();
  }
}
