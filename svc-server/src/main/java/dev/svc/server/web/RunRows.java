package dev.svc.server.web;

import dev.svc.core.domain.CampaignStatus;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.server.store.Flags;
import dev.svc.server.store.StoredJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns stored quick tests and campaigns into the plain maps the run pages show. */
final class RunRows {

  private RunRows() {
  }

  static boolean isActive(String testStatus) {
    return QuickTestStatus.parse(testStatus).map(QuickTestStatus::isActive).orElse(false);
  }

  /** Queued or running campaigns: their log is still growing. */
  static boolean isLive(String campaignStatus) {
    return CampaignStatus.parse(campaignStatus).map(CampaignStatus::canCancel).orElse(false);
  }

  static Map<String, Object> quickTest(JsonObject row) {
    Map<String, Object> out = new LinkedHashMap<>();
    String status = row.getString("status");
    out.put("id", row.getString("id"));
    out.put("model", row.getString("model_path"));
    out.put("model_name", baseName(row.getString("model_path")));
    out.put("engine", row.getString("engine_name"));
    out.put("benchmark", row.getString("benchmark_name"));
    out.put("suite", row.getString("suite_name"));
    out.put("agent_id", row.getString("agent_id"));
    out.put("agent", row.getString("agent_name") == null ? row.getString("agent_id") : row.getString("agent_name"));
    out.put("agent_deleted", row.getString("agent_deleted_at") != null);
    out.put("status", status);
    out.put("active", isActive(status));
    out.put("force", Flags.isTrue(row.getValue("force")));
    out.put("error", row.getString("error"));
    out.put("attempts", row.getValue("attempts"));
    out.put("result_id", row.getString("result_id"));
    out.put("campaign_id", row.getString("campaign_id"));
    out.put("campaign_row", row.getValue("campaign_row") instanceof Number n ? n.intValue() + 1 : null);
    out.put("created_at", row.getString("created_at"));
    out.put("dispatched_at", row.getString("dispatched_at"));
    out.put("started_at", row.getString("started_at"));
    out.put("completed_at", row.getString("completed_at"));
    return out;
  }

  static Map<String, Object> campaign(JsonObject row) {
    Map<String, Object> out = new LinkedHashMap<>();
    String status = row.getString("status");
    int succeeded = count(row, "succeeded");
    int failed = count(row, "failed");
    int skipped = count(row, "skipped");
    int total = count(row, "total_runs");
    JsonObject config = java.util.Objects.requireNonNullElseGet(StoredJson.object(row.getString("config")), JsonObject::new);
    out.put("id", row.getString("id"));
    out.put("name", row.getString("name"));
    out.put("description", row.getString("description"));
    out.put("agent_id", row.getString("agent_id"));
    out.put("agent", row.getString("agent_name") == null ? row.getString("agent_id") : row.getString("agent_name"));
    out.put("status", status);
    out.put("can_cancel", isLive(status));
    out.put("can_launch", CampaignStatus.parse(status).map(CampaignStatus::canLaunch).orElse(false));
    out.put("total", total);
    out.put("succeeded", succeeded);
    out.put("failed", failed);
    out.put("skipped", skipped);
    out.put("done", succeeded + failed + skipped);
    out.put("created_at", row.getString("created_at"));
    out.put("started_at", row.getString("started_at"));
    out.put("completed_at", row.getString("completed_at"));
    out.put("models", names(config.getValue("models"), "path"));
    out.put("engines", names(config.getValue("engines"), "name"));
    out.put("benchmarks", names(config.getValue("benchmarks"), null));
    out.put("suite", config.getString("suite_name", "quick"));
    out.put("force", Boolean.TRUE.equals(config.getValue("force")));
    return out;
  }

  /** One row of a campaign: the quick test made for it. */
  static Map<String, Object> campaignRow(JsonObject row) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", row.getString("id"));
    out.put("number", row.getValue("campaign_row") instanceof Number n ? n.intValue() + 1 : null);
    out.put("model", row.getString("model_path"));
    out.put("model_name", baseName(row.getString("model_path")));
    out.put("engine", row.getString("engine_name"));
    out.put("benchmark", row.getString("benchmark_name"));
    out.put("status", row.getString("status"));
    out.put("error", row.getString("error"));
    out.put("result_id", row.getString("result_id"));
    out.put("completed_at", row.getString("completed_at"));
    return out;
  }

  /** The last segment of a model path ("/models/llama-3-8b/" → "llama-3-8b"); the path itself when it has none. */
  static String baseName(String path) {
    if (path == null) {
      return "";
    }
    String trimmed = path.replaceAll("[/\\\\]+$", "");
    int cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
    String name = cut >= 0 ? trimmed.substring(cut + 1) : trimmed;
    return name.isEmpty() ? path : name;
  }

  private static int count(JsonObject row, String key) {
    return row.getValue(key) instanceof Number n ? n.intValue() : 0;
  }


  /** The {@code key} of each object in a config list (or each string, when {@code key} is null). */
  private static List<String> names(Object list, String key) {
    List<String> out = new ArrayList<>();
    if (list instanceof JsonArray array) {
      for (Object item : array) {
        if (key == null && item instanceof String s) {
          out.add(s);
        } else if (key != null && item instanceof JsonObject o && o.getValue(key) instanceof String s) {
          out.add(s);
        }
      }
    }
    return out;
  }
}
