package dev.svc.server.http;

import dev.svc.server.store.Flags;
import dev.svc.server.store.StoredJson;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/** Turns stored rows into the JSON objects of the API (never exposing token hashes). */
final class Views {

  private Views() {
  }

  static JsonObject agent(JsonObject row, Map<String, String> settings) {
    boolean isTest = Flags.isTrue(row.getValue("is_test_agent"));
    JsonObject out = new JsonObject()
        .put("id", row.getString("id"))
        .put("name", row.getString("name"))
        .put("hostname", row.getString("hostname"))
        .put("port", row.getValue("port"))
        .put("status", row.getString("status"))
        .put("is_test_agent", isTest)
        .put("gpu_info", row.getString("gpu_info"))
        .put("gpu_count", row.getValue("gpu_count"))
        .put("cpu_info", row.getString("cpu_info"))
        .put("cpu_arch", row.getString("cpu_arch"))
        .put("ram_gb", row.getValue("ram_gb"))
        .put("environment_type", row.getString("environment_type"))
        .put("fingerprint", row.getString("fingerprint"))
        .put("agent_version", row.getString("agent_version"))
        .put("hardware_details", StoredJson.object(row.getString("hardware_details")))
        .put("capabilities", parseArray(row.getString("capabilities")))
        .put("current_task", row.getString("current_task"))
        .put("gpu_utilization_pct", row.getValue("gpu_utilization_pct"))
        .put("gpu_memory_used_gb", row.getValue("gpu_memory_used_gb"))
        .put("storage_gb_free", row.getValue("storage_gb_free"))
        .put("uptime_s", row.getValue("uptime_s"))
        .put("last_heartbeat_at", row.getString("last_heartbeat_at"))
        .put("registered_at", row.getString("registered_at"))
        .put("notes", row.getString("notes"))
        .put("tags", parseArray(row.getString("tags")))
        .put("has_token", row.getString("token_hash") != null)
        .put("token_prefix", row.getString("token_prefix"))
        .put("deleted", row.getString("deleted_at") != null);
    if (settings != null) {
      out.put("settings", new JsonObject(new java.util.LinkedHashMap<>(settings)));
    }
    return out;
  }

  static JsonObject quickTest(JsonObject row) {
    return new JsonObject()
        .put("id", row.getString("id"))
        .put("agent_id", row.getString("agent_id"))
        .put("agent_name", row.getString("agent_name"))
        .put("agent_deleted", row.getString("agent_deleted_at") != null)
        .put("model_path", row.getString("model_path"))
        .put("engine_name", row.getString("engine_name"))
        .put("benchmark_name", row.getString("benchmark_name"))
        .put("suite_name", row.getString("suite_name"))
        .put("status", row.getString("status"))
        .put("command_id", row.getString("command_id"))
        .put("force", Flags.isTrue(row.getValue("force")))
        .put("error", row.getString("error"))
        .put("attempts", row.getValue("attempts"))
        .put("result_id", row.getString("result_id"))
        .put("campaign_id", row.getString("campaign_id"))
        .put("created_at", row.getString("created_at"))
        .put("dispatched_at", row.getString("dispatched_at"))
        .put("started_at", row.getString("started_at"))
        .put("completed_at", row.getString("completed_at"))
        .put("updated_at", row.getString("updated_at"));
  }

  static JsonObject result(JsonObject row) {
    JsonObject data = StoredJson.object(row.getString("data"));
    JsonObject out = data == null ? new JsonObject() : data.copy();
    out.put("id", row.getString("id"));
    if (row.getString("test_id") != null) {
      out.put("test_id", row.getString("test_id"));
    }
    if (row.getString("agent_id") != null) {
      out.put("agent_id", row.getString("agent_id"));
    }
    if (row.getString("source_path") != null) {
      out.put("source_path", row.getString("source_path"));
    }
    out.put("indexed_at", row.getString("created_at"));
    return out;
  }

  static JsonObject campaign(JsonObject row) {
    return new JsonObject()
        .put("id", row.getString("id"))
        .put("name", row.getString("name"))
        .put("description", row.getString("description"))
        .put("agent_id", row.getString("agent_id"))
        .put("agent_name", row.getString("agent_name"))
        .put("agent_deleted", row.getString("agent_deleted_at") != null)
        .put("config", StoredJson.object(row.getString("config")))
        .put("status", row.getString("status"))
        .put("total_runs", row.getValue("total_runs"))
        .put("succeeded", row.getValue("succeeded"))
        .put("failed", row.getValue("failed"))
        .put("skipped", row.getValue("skipped"))
        .put("created_at", row.getString("created_at"))
        .put("started_at", row.getString("started_at"))
        .put("completed_at", row.getString("completed_at"));
  }

  /** Stored log lines as {@code {"lines": [{"id","created_at","line"}]}}. */
  static JsonObject logLines(java.util.List<JsonObject> rows) {
    JsonArray lines = new JsonArray();
    for (JsonObject row : rows) {
      lines.add(new JsonObject().put("id", row.getValue("id")).put("created_at", row.getString("created_at"))
          .put("line", row.getString("line")));
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
