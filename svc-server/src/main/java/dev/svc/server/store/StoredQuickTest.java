package dev.svc.server.store;

/**
 * A stored quick test, with its agent's name, deletion time and kind where the query joined them
 * (null otherwise), and the agent's written last heartbeat for the sweep of offline agents.
 */
public record StoredQuickTest(String id, String agentId, String modelPath, String engineName, String benchmarkName,
    String suiteName, String status, String commandId, boolean force, String error, Integer attempts,
    String resultId, String campaignId, Integer campaignRow, String endedBy, String createdAt,
    String dispatchedAt, String startedAt, String completedAt, String leaseExpiresAt, String updatedAt,
    String agentName, String agentDeletedAt, boolean agentIsTest, String agentLastHeartbeatAt) {

  /** The agent's name, or its id when the query did not join it (or the agent is gone). */
  public String agentLabel() {
    return agentName == null ? agentId : agentName;
  }
}
