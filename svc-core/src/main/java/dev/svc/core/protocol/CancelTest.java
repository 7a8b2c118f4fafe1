package dev.svc.core.protocol;

import io.vertx.core.json.JsonObject;

/**
 * The payload of a {@code cancel_test} command: the test to stop. The server writes it with
 * {@link #toJson}; an agent reads it with {@link #from} where the command itself names no
 * {@code test_id}. The test id is an empty string when the payload leaves it out, as in {@link RunTest}.
 */
public record CancelTest(String testId) {

  /** Longest test id taken; the server's are far shorter. */
  public static final int MAX_TEST_ID = 128;

  public JsonObject toJson() {
    return new JsonObject().put("test_id", testId);
  }

  /** Reads a payload; a test id that is not a short one-line string is refused with a sentence naming it. */
  public static CancelTest from(JsonObject payload) {
    JsonObject p = payload == null ? new JsonObject() : payload;
    try {
      return new CancelTest(Fields.line("test_id", Fields.optString(p, "test_id", ""), MAX_TEST_ID));
    } catch (BadMessage e) {
      throw new HeartbeatAnswer.MalformedException("cancel_test payload: " + e.getMessage());
    }
  }
}
