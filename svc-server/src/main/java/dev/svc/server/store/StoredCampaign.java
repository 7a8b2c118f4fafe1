package dev.svc.server.store;

import io.vertx.core.json.JsonObject;

/** A stored campaign with its agent's name and deletion time (null where the query did not join them). */
public record StoredCampaign(String id, String name, String description, String agentId, String config,
    String status, Integer totalRuns, Integer succeeded, Integer failed, Integer skipped, String createdAt,
    String startedAt, String completedAt, String agentName, String agentDeletedAt) {

  /** The stored matrix (models, engines, benchmarks, suite, force), or null when unreadable. */
  public JsonObject configObject() {
    return StoredJson.object(config);
  }

  /** The agent's name, or its id when the query did not join it (or the agent is gone). */
  public String agentLabel() {
    return agentName == null ? agentId : agentName;
  }
}
