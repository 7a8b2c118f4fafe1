package dev.svc.core.protocol;

import dev.svc.core.domain.AgentStatus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A heartbeat (protocol.md 2.2): the agent's status, its current task, its metrics and the ids of
 * the commands it accepted. The agent and the fleet simulator write it with {@link #toJson}; the
 * server reads it with {@link #parse}, whole: every metric within what hardware can report, or the
 * heartbeat is refused with one sentence. Old agents send no acknowledgements and may leave any
 * key out; unknown keys are ignored.
 *
 * @param metrics null where the agent reported nothing
 * @param ackedCommandIds null when the agent sent none (an old agent)
 */
public record Heartbeat(AgentStatus status, String currentTask, Double gpuUtilizationPct, Double gpuMemoryUsedGb,
    Double storageGbFree, Double uptimeS, List<String> ackedCommandIds) {

  /** Command ids one heartbeat may acknowledge, and how long each may be. */
  public static final int MAX_ACKS = 1000;
  public static final int MAX_ACK_LENGTH = 64;
  public static final int MAX_TASK_LENGTH = 64;

  public static Heartbeat parse(JsonObject body) {
    String reported = Fields.optString(body, "status", AgentStatus.IDLE.wireName());
    AgentStatus status = AgentStatus.parse(reported).filter(AgentStatus::isReportable)
        .orElseThrow(() -> new BadMessage("Field 'status' must be idle, running or error"));
    String task = Fields.line("current_task", Fields.optString(body, "current_task", ""), MAX_TASK_LENGTH);
    Double gpu = Fields.boundedNumber(body, "gpu_utilization_pct", 100);
    Double memory = Fields.boundedNumber(body, "gpu_memory_used_gb", 1e7);
    Double storage = Fields.boundedNumber(body, "storage_gb_free", 1e9);
    Double uptime = Fields.boundedNumber(body, "uptime_s", 1e10);
    List<String> acks = Fields.optStringList(body, "acked_command_ids");
    if (acks != null && (acks.size() > MAX_ACKS || acks.stream().anyMatch(a -> a.length() > MAX_ACK_LENGTH))) {
      throw new BadMessage("Field 'acked_command_ids' must list at most " + MAX_ACKS + " command ids");
    }
    return new Heartbeat(status, task, gpu, memory, storage, uptime, acks == null ? null : List.copyOf(acks));
  }

  /** The heartbeat as sent; a metric the agent has not is left out. */
  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("status", status.wireName()).put("current_task", currentTask == null ? "" : currentTask);
    Fields.putIfKnown(json, "gpu_utilization_pct", gpuUtilizationPct);
    Fields.putIfKnown(json, "gpu_memory_used_gb", gpuMemoryUsedGb);
    Fields.putIfKnown(json, "storage_gb_free", storageGbFree);
    Fields.putIfKnown(json, "uptime_s", uptimeS);
    if (ackedCommandIds != null) {
      json.put("acked_command_ids", new JsonArray(List.copyOf(ackedCommandIds)));
    }
    return json;
  }

  /** What the server keeps of it: the status, the task and every metric (null where unreported). */
  public JsonObject metrics() {
    return new JsonObject().put("status", status.wireName()).put("current_task", currentTask)
        .put("gpu_utilization_pct", gpuUtilizationPct).put("gpu_memory_used_gb", gpuMemoryUsedGb)
        .put("storage_gb_free", storageGbFree).put("uptime_s", uptimeS);
  }
}
