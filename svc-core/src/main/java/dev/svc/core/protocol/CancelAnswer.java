package dev.svc.core.protocol;

import dev.svc.core.domain.QuickTestStatus;
import io.vertx.core.json.JsonObject;

/**
 * The server's answer to a quick test's cancel ({@code POST /api/v1/quicktest/<id>/cancel}, 200):
 * the state the test was left in and why. The server writes it with {@link #toJson};
 * {@code svc-agent test stop} reads it with {@link #parse}. A field left out reads as what a cancel
 * always does: the test failed, cancelled by the user.
 */
public record CancelAnswer(QuickTestStatus status, String error) {

  /** The error a cancel leaves on the test. */
  public static final String CANCELLED = "Cancelled by user";
  public static final int MAX_ERROR_LENGTH = 1024;

  public static CancelAnswer parse(JsonObject body) {
    String reported = Fields.optString(body, "status", QuickTestStatus.FAILED.wireName());
    QuickTestStatus status = QuickTestStatus.parse(reported)
        .orElseThrow(() -> new BadMessage("Field 'status' must be queued, dispatched, running, completed or failed"));
    return new CancelAnswer(status, Fields.line("error", Fields.optString(body, "error", CANCELLED), MAX_ERROR_LENGTH));
  }

  public JsonObject toJson() {
    return new JsonObject().put("ok", true).put("status", status.wireName()).put("error", error);
  }
}
