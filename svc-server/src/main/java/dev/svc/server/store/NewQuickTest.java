package dev.svc.server.store;

/** A quick test to queue: {@code campaignId} and {@code campaignRow} are set for a campaign's row, null otherwise. */
public record NewQuickTest(String id, String agentId, String modelPath, String engineName, String benchmarkName,
    String suiteName, String commandId, boolean force, String campaignId, Integer campaignRow) {
}
