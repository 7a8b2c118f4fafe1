package dev.svc.core.protocol;

import dev.svc.core.domain.QuickTestStatus;
import io.vertx.core.json.JsonObject;

/**
 * An agent's report of where its test stands (protocol.md 3,
 * {@code POST /api/v1/quicktest/<id>/status}): running, completed, or failed with an error.
 *
 * @param error null unless the agent gave one
 */
public record StatusReport(QuickTestStatus status, String error) {

  public static final int MAX_ERROR_LENGTH = 100_000;

  public static StatusReport parse(JsonObject body) {
    String requested = Fields.requireString(body, "status");
    QuickTestStatus status = QuickTestStatus.parse(requested).filter(StatusReport::reportable)
        .orElseThrow(() -> new BadMessage("Field 'status' must be running, completed or failed"));
    return new StatusReport(status, Fields.limit("error", Fields.optString(body, "error", null), MAX_ERROR_LENGTH));
  }

  /** The states an agent may report: the rest are the server's. */
  public static boolean reportable(QuickTestStatus status) {
    return status == QuickTestStatus.RUNNING || status.isTerminal();
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("status", status.wireName());
    if (error != null) {
      json.put("error", error);
    }
    return json;
  }
}
