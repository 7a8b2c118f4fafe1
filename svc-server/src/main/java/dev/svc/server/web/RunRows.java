package dev.svc.server.web;

import dev.svc.core.domain.CampaignStatus;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.server.campaigns.CampaignConfig;
import dev.svc.server.store.StoredCampaign;
import dev.svc.server.store.StoredQuickTest;
import java.util.LinkedHashMap;
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

  static Map<String, Object> quickTest(StoredQuickTest t) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", t.id());
    out.put("model", t.modelPath());
    out.put("model_name", baseName(t.modelPath()));
    out.put("engine", t.engineName());
    out.put("benchmark", t.benchmarkName());
    out.put("suite", t.suiteName());
    out.put("agent_id", t.agentId());
    out.put("agent", t.agentLabel());
    out.put("agent_deleted", t.agentDeletedAt() != null);
    out.put("status", t.status());
    out.put("active", isActive(t.status()));
    out.put("force", t.force());
    out.put("error", t.error());
    out.put("attempts", t.attempts());
    out.put("result_id", t.resultId());
    out.put("campaign_id", t.campaignId());
    out.put("campaign_row", t.campaignRow() == null ? null : t.campaignRow() + 1);
    out.put("created_at", t.createdAt());
    out.put("dispatched_at", t.dispatchedAt());
    out.put("started_at", t.startedAt());
    out.put("completed_at", t.completedAt());
    return out;
  }

  static Map<String, Object> campaign(StoredCampaign c) {
    Map<String, Object> out = new LinkedHashMap<>();
    int succeeded = count(c.succeeded());
    int failed = count(c.failed());
    int skipped = count(c.skipped());
    CampaignConfig config = CampaignConfig.stored(c.configObject());
    out.put("id", c.id());
    out.put("name", c.name());
    out.put("description", c.description());
    out.put("agent_id", c.agentId());
    out.put("agent", c.agentLabel());
    out.put("status", c.status());
    out.put("can_cancel", isLive(c.status()));
    out.put("can_launch", CampaignStatus.parse(c.status()).map(CampaignStatus::canLaunch).orElse(false));
    out.put("total", count(c.totalRuns()));
    out.put("succeeded", succeeded);
    out.put("failed", failed);
    out.put("skipped", skipped);
    out.put("done", succeeded + failed + skipped);
    out.put("created_at", c.createdAt());
    out.put("started_at", c.startedAt());
    out.put("completed_at", c.completedAt());
    out.put("models", config.models().stream().map(CampaignConfig.Model::path).toList());
    out.put("engines", config.engines().stream().map(CampaignConfig.Engine::name).toList());
    out.put("benchmarks", config.benchmarks());
    out.put("suite", config.suiteName());
    out.put("force", config.force());
    return out;
  }

  /** One row of a campaign: the quick test made for it. */
  static Map<String, Object> campaignRow(StoredQuickTest t) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", t.id());
    out.put("number", t.campaignRow() == null ? null : t.campaignRow() + 1);
    out.put("model", t.modelPath());
    out.put("model_name", baseName(t.modelPath()));
    out.put("engine", t.engineName());
    out.put("benchmark", t.benchmarkName());
    out.put("status", t.status());
    out.put("error", t.error());
    out.put("result_id", t.resultId());
    out.put("completed_at", t.completedAt());
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

  private static int count(Integer value) {
    return value == null ? 0 : value;
  }
}
