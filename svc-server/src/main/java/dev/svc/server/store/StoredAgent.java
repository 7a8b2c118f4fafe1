package dev.svc.server.store;

import io.vertx.core.json.JsonObject;

/**
 * A stored agent: its registration, its last written heartbeat (the metrics as they came, number
 * types kept) and its token's hash and prefix, never shown. A query that selects fewer columns
 * leaves the others null.
 */
public record StoredAgent(String id, String name, String hostname, Number port, String gpuInfo, Number gpuCount,
    String cpuInfo, String cpuArch, Number ramGb, String environmentType, String fingerprint, String agentVersion,
    String hardwareDetails, String capabilities, String status, String currentTask, Number gpuUtilizationPct,
    Number gpuMemoryUsedGb, Number storageGbFree, Number uptimeS, String lastHeartbeatAt, String registeredAt,
    String tokenHash, String tokenPrefix, boolean isTestAgent, String notes, String tags, String deletedAt) {

  /** The name, or the id of an agent that has none. */
  public String label() {
    return name == null ? id : name;
  }

  public boolean deleted() {
    return deletedAt != null;
  }

  /** The hardware details the agent registered with, or null when it sent none (or they are unreadable). */
  public JsonObject hardwareDetailsObject() {
    return StoredJson.object(hardwareDetails);
  }

  /**
   * This agent with a heartbeat newer than the written one: its metrics and time (its status and
   * task stay the row's: status changes are written at once).
   */
  StoredAgent withBeat(JsonObject metrics, String at) {
    return new StoredAgent(id, name, hostname, port, gpuInfo, gpuCount, cpuInfo, cpuArch, ramGb, environmentType,
        fingerprint, agentVersion, hardwareDetails, capabilities, status, currentTask,
        number(metrics, "gpu_utilization_pct"), number(metrics, "gpu_memory_used_gb"),
        number(metrics, "storage_gb_free"), number(metrics, "uptime_s"), at, registeredAt, tokenHash, tokenPrefix,
        isTestAgent, notes, tags, deletedAt);
  }

  private static Number number(JsonObject metrics, String key) {
    return metrics.getValue(key) instanceof Number n ? n : null;
  }
}
