package dev.svc.core.protocol;

import io.vertx.core.json.JsonObject;

/**
 * An agent's result of one run (protocol.md 2.3, {@code POST /api/v1/agents/<id>/results}),
 * idempotent per command id. The result data is the run's {@code metrics.json} document, kept as
 * JSON: its shape is the benchmarks' (benchmarks.md), not the protocol's.
 *
 * @param testId null when the agent does not name it (the command id finds the test)
 * @param status null when not given
 * @param resultData null when the run produced none
 */
public record ResultReport(String commandId, String testId, String status, String error, JsonObject resultData) {

  public static final int MAX_ID_LENGTH = 64;
  public static final int MAX_ERROR_LENGTH = 100_000;

  public static ResultReport parse(JsonObject body) {
    String commandId = Fields.limit("command_id", Fields.requireString(body, "command_id"), MAX_ID_LENGTH);
    String testId = Fields.limit("test_id", Fields.optString(body, "test_id", null), MAX_ID_LENGTH);
    String status = Fields.optString(body, "status", null);
    String error = Fields.limit("error", Fields.optString(body, "error", null), MAX_ERROR_LENGTH);
    Object data = body.getValue("result_data");
    if (data != null && !(data instanceof JsonObject)) {
      throw new BadMessage("Field 'result_data' must be an object");
    }
    return new ResultReport(commandId, testId, status, error, (JsonObject) data);
  }

  public JsonObject toJson() {
    return new JsonObject().put("command_id", commandId).put("test_id", testId).put("status", status)
        .put("error", error).put("result_data", resultData);
  }
}
