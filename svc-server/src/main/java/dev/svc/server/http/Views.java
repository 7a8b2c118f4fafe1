package dev.svc.server.http;

import dev.svc.core.protocol.Fields;
import dev.svc.server.store.LogLine;
import dev.svc.server.store.StoredAgent;
import dev.svc.server.store.StoredCampaign;
import dev.svc.server.store.StoredQuickTest;
import dev.svc.server.store.StoredResult;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/** Turns stored rows into the JSON objects of the API (never exposing token hashes). */
final class Views {

  private Views() {
  }

  static JsonObject agent(StoredAgent row, Map<String, String> settings) {
    boolean isTest = row.isTestAgent();
    JsonObject out = new JsonObject()
        .put("id", row.id())
        .put("name", row.name())
        .put("hostname", row.hostname())
        .put("port", row.port())
        .put("status", row.status())
        .put("is_test_agent", isTest)
        .put("gpu_info", row.gpuInfo())
        .put("gpu_count", row.gpuCount())
        .put("cpu_info", row.cpuInfo())
        .put("cpu_arch", row.cpuArch())
        .put("ram_gb", row.ramGb())
        .put("environment_type", row.environmentType())
        .put("fingerprint", row.fingerprint())
        .put("agent_version", row.agentVersion())
        .put("hardware_details", row.hardwareDetailsObject())
        .put("capabilities", parseArray(row.capabilities()))
        .put("current_task", row.currentTask())
        .put("gpu_utilization_pct", row.gpuUtilizationPct())
        .put("gpu_memory_used_gb", row.gpuMemoryUsedGb())
        .put("storage_gb_free", row.storageGbFree())
        .put("uptime_s", row.uptimeS())
        .put("last_heartbeat_at", row.lastHeartbeatAt())
        .put("registered_at", row.registeredAt())
        .put("notes", row.notes())
        .put("tags", parseArray(row.tags()))
        .put("has_token", row.tokenHash() != null)
        .put("token_prefix", row.tokenPrefix())
        .put("deleted", row.deleted());
    if (settings != null) {
      out.put("settings", new JsonObject(new java.util.LinkedHashMap<>(settings)));
    }
    return out;
  }

  static JsonObject quickTest(StoredQuickTest t) {
    return new JsonObject()
        .put("id", t.id())
        .put("agent_id", t.agentId())
        .put("agent_name", t.agentName())
        .put("agent_deleted", t.agentDeletedAt() != null)
        .put("model_path", t.modelPath())
        .put("engine_name", t.engineName())
        .put("benchmark_name", t.benchmarkName())
        .put("suite_name", t.suiteName())
        .put("status", t.status())
        .put("command_id", t.commandId())
        .put("force", t.force())
        .put("error", t.error())
        .put("attempts", t.attempts())
        .put("result_id", t.resultId())
        .put("campaign_id", t.campaignId())
        .put("created_at", t.createdAt())
        .put("dispatched_at", t.dispatchedAt())
        .put("started_at", t.startedAt())
        .put("completed_at", t.completedAt())
        .put("updated_at", t.updatedAt());
  }

  /** A campaign's quick test as its detail lists it ({@code campaign_row} counts from 0). */
  static JsonObject campaignTest(StoredQuickTest t) {
    return new JsonObject()
        .put("id", t.id())
        .put("campaign_row", t.campaignRow())
        .put("model_path", t.modelPath())
        .put("engine_name", t.engineName())
        .put("benchmark_name", t.benchmarkName())
        .put("suite_name", t.suiteName())
        .put("status", t.status())
        .put("error", t.error())
        .put("result_id", t.resultId())
        .put("created_at", t.createdAt())
        .put("completed_at", t.completedAt());
  }

  static JsonObject result(StoredResult r) {
    JsonObject data = r.dataObject();
    JsonObject out = data == null ? new JsonObject() : data.copy();
    out.put("id", r.id());
    Fields.putIfKnown(out, "test_id", r.testId());
    Fields.putIfKnown(out, "agent_id", r.agentId());
    Fields.putIfKnown(out, "source_path", r.sourcePath());
    out.put("indexed_at", r.createdAt());
    return out;
  }

  static JsonObject campaign(StoredCampaign c) {
    return new JsonObject()
        .put("id", c.id())
        .put("name", c.name())
        .put("description", c.description())
        .put("agent_id", c.agentId())
        .put("agent_name", c.agentName())
        .put("agent_deleted", c.agentDeletedAt() != null)
        .put("config", c.configObject())
        .put("status", c.status())
        .put("total_runs", c.totalRuns())
        .put("succeeded", c.succeeded())
        .put("failed", c.failed())
        .put("skipped", c.skipped())
        .put("created_at", c.createdAt())
        .put("started_at", c.startedAt())
        .put("completed_at", c.completedAt());
  }

  /** Stored log lines as {@code {"lines": [{"id","created_at","line"}]}}. */
  static JsonObject logLines(java.util.List<LogLine> rows) {
    JsonArray lines = new JsonArray();
    for (LogLine row : rows) {
      lines.add(new JsonObject().put("id", row.id()).put("created_at", row.createdAt()).put("line", row.line()));
    }
    return new JsonObject().put("lines", lines);
  }

  static JsonArray parseArray(String text) {
    if (text == null || text.isBlank()) {
      return new JsonArray();
    }
    try {
      return new JsonArray(text);
    } catch (DecodeException | ClassCastException e) {
      return new JsonArray();
    }
  }
}
