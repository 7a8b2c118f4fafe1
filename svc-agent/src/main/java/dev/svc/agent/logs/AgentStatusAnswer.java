package dev.svc.agent.logs;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;

/**
 * The local agent's answer to {@code GET /api/status} on its own API: its name, whether a
 * benchmark runs and which test, and the figures of its model storage. The agent's API writes it
 * with {@link #toJson}; {@code svc-agent status} reads it with {@link #parse}. An agent that
 * answers is running, so {@code running} is always true on the wire and not kept.
 *
 * @param name the agent's configured name; null when it has none
 * @param currentTest the test the engine holds; empty when none
 * @param storage null when the answer has none (an older agent)
 * @param server the server node the agent talks to now; null when the answer has none (an older agent)
 */
public record AgentStatusAnswer(String name, boolean benchmarkActive, String currentTest, Storage storage,
    String server) {

  public static final int MAX_TEST_ID = 128;

  /**
   * The model storage directory's figures; each null when the agent could not tell.
   *
   * @param freeGb free space of its file system, GB
   * @param usedGb bytes of its files, GB
   * @param modelCount its entries
   */
  public record Storage(Double freeGb, Double usedGb, Integer modelCount) {

    /** What an agent that could not read its storage reports: no figures. */
    public static final Storage UNKNOWN = new Storage(null, null, null);

    /** Most GB taken: an exabyte, more than any share a model directory sits on. */
    public static final long MAX_GB = 1_000_000_000L;

    public static Storage parse(JsonObject json) {
      return new Storage(gb(json, "free_gb"), gb(json, "used_gb"),
          Fields.optInt(json, "model_count", null, 0, Integer.MAX_VALUE));
    }

    private static Double gb(JsonObject json, String field) {
      Double value = Fields.optNumber(json, field, null);
      if (value != null && (value < 0 || value > MAX_GB)) {
        throw new BadMessage("Field '" + field + "' must be between 0 and " + MAX_GB);
      }
      return value;
    }

    public JsonObject toJson() {
      JsonObject json = new JsonObject();
      Fields.putIfKnown(json, "free_gb", freeGb);
      Fields.putIfKnown(json, "used_gb", usedGb);
      Fields.putIfKnown(json, "model_count", modelCount);
      return json;
    }
  }

  public AgentStatusAnswer {
    currentTest = currentTest == null ? "" : currentTest;
  }

  public static AgentStatusAnswer parse(JsonObject body) {
    JsonObject storage = Fields.optObject(body, "storage");
    return new AgentStatusAnswer(
        Fields.line("name", Fields.optString(body, "name", null), 255),
        Fields.optBoolean(body, "benchmark_active", false),
        Fields.line("current_test", Fields.optString(body, "current_test", ""), MAX_TEST_ID),
        storage == null ? null : Storage.parse(storage),
        Fields.line("server", Fields.optString(body, "server", null), 2048));
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("name", name).put("running", true).put("benchmark_active", benchmarkActive)
        .put("current_test", currentTest);
    if (storage != null) {
      json.put("storage", storage.toJson());
    }
    Fields.putIfKnown(json, "server", server);
    return json;
  }
}
