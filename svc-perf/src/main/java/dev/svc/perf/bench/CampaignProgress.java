package dev.svc.perf.bench;

import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;

/**
 * What the fleet benchmark reads of a campaign ({@code GET /api/v1/campaigns/<id>}): its run counts,
 * each 0 where the server has none yet.
 */
record CampaignProgress(long totalRuns, long succeeded, long failed) {

  static CampaignProgress parse(JsonObject body) {
    return new CampaignProgress(count(body, "total_runs"), count(body, "succeeded"), count(body, "failed"));
  }

  private static long count(JsonObject body, String field) {
    return Fields.optLong(body, field, 0L, 0, Integer.MAX_VALUE);
  }
}
