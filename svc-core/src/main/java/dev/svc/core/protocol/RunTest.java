package dev.svc.core.protocol;

import io.vertx.core.json.JsonObject;

/**
 * The payload of a {@code run_test} command: which test, which model on which engine, which
 * benchmark of which suite, and whether to run it although the agent judged the pair incompatible.
 * The server writes it with {@link #toJson}; the agent and the fleet simulator read it with
 * {@link #from}. Text fields are empty strings when the server left them out (older servers did).
 */
public record RunTest(String testId, String modelPath, String engineName, String benchmarkName, String suiteName,
    boolean force) {

  public JsonObject toJson() {
    return new JsonObject().put("test_id", testId).put("model_path", modelPath).put("engine_name", engineName)
        .put("benchmark_name", benchmarkName).put("suite_name", suiteName).put("force", force);
  }

  /** Reads a payload; a field of the wrong kind is refused with a sentence naming it. */
  public static RunTest from(JsonObject payload) {
    JsonObject p = payload == null ? new JsonObject() : payload;
    Object force = p.getValue("force");
    if (force != null && !(force instanceof Boolean)) {
      throw new HeartbeatAnswer.MalformedException("run_test payload: force must be true or false");
    }
    return new RunTest(text(p, "test_id"), text(p, "model_path"), text(p, "engine_name"), text(p, "benchmark_name"),
        text(p, "suite_name"), Boolean.TRUE.equals(force));
  }

  private static String text(JsonObject payload, String field) {
    Object value = payload.getValue(field);
    if (value != null && !(value instanceof String)) {
      throw new HeartbeatAnswer.MalformedException("run_test payload: " + field + " must be a string");
    }
    return value == null ? "" : (String) value;
  }
}
