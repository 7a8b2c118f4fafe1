package dev.svc.agent;

import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The addresses on the agent's own (local, unclustered) event bus, where its three verticles
 * talk. Bodies are JSON objects; field names are those of the wire protocol.
 *
 * <pre>
 * ENGINE_COMMAND  request  Control → Engine   a server command as received:
 *                                             {command_id, test_id, type, payload}; type run_test,
 *                                             run_container, cleanup_storage or cancel_test.
 *                                             Reply {accepted: bool, reason?}. Idempotent per
 *                                             command_id (the server sends a command until it is
 *                                             acknowledged); Control acknowledges a command only
 *                                             once accepted is true.
 * ENGINE_CANCEL   request  LogServer → Engine {test_id} → {cancelled: bool}; the benchmark's
 *                                             process or container is gone when it answers true.
 * ENGINE_STATE    request  any → Engine       {} → {busy, test_id, command_id, status}
 *                                             (status idle, running or error).
 * SETTINGS        publish  Control → all      the agent's settings as the server sent them
 *                                             (string values, every key present).
 * LOG             publish  Engine → LogServer {command_id, test_id, line}: the benchmark's output,
 *                                             for the local SSE stream /api/logs/&lt;command_id&gt;.
 * UPLINK_LOGS     request  Engine → Uplink    {test_id, command_id, lines: [..]}
 * UPLINK_STATUS   request  Engine → Uplink    {test_id, command_id, status, error?}
 * UPLINK_RESULT   request  Engine → Uplink    {command_id, test_id, status, error, result_data}
 *                                             The three UPLINK requests are answered once the
 *                                             entry is on disk in the spool; the uplink delivers
 *                                             them to the server in the order received, retrying
 *                                             with backoff and jitter until the server accepts
 *                                             (2xx) or refuses for good (4xx other than 408/429).
 * TEST_ENDED      publish  Uplink → LogServer {test_id, command_id} once a test's final status or
 *                                             result is spooled: that command's local log stream ends.
 * </pre>
 *
 * <p>Each body has its record here, written with {@code toJson} and read with {@code parse}; the
 * uplink's requests are svc-core's {@code LogBatch}, {@code StatusReport} and {@code ResultReport}
 * with the run they belong to.
 */
public final class AgentBus {

  public static final String ENGINE_COMMAND = "svc.agent.engine.command";
  public static final String ENGINE_CANCEL = "svc.agent.engine.cancel";
  public static final String ENGINE_STATE = "svc.agent.engine.state";
  public static final String SETTINGS = "svc.agent.settings";
  public static final String LOG = "svc.agent.log";
  public static final String UPLINK_LOGS = "svc.agent.uplink.logs";
  public static final String UPLINK_STATUS = "svc.agent.uplink.status";
  public static final String UPLINK_RESULT = "svc.agent.uplink.result";
  public static final String TEST_ENDED = "svc.agent.uplink.test-ended";

  private AgentBus() {
  }

  /** The engine's answer to a command: accepted, or refused with a reason. */
  public record Acceptance(boolean accepted, String reason) {

    public static Acceptance yes() {
      return new Acceptance(true, null);
    }

    public static Acceptance refused(String reason) {
      return new Acceptance(false, reason);
    }

    public static Acceptance parse(JsonObject json) {
      return new Acceptance(Fields.optBoolean(json, "accepted", false), Fields.optString(json, "reason", null));
    }

    public JsonObject toJson() {
      JsonObject json = new JsonObject().put("accepted", accepted);
      Fields.putIfKnown(json, "reason", reason);
      return json;
    }
  }

  /** What the engine is doing: {@link #ENGINE_STATE}'s answer. */
  public record EngineState(boolean busy, String testId, String commandId, String status) {

    public static final List<String> STATUSES = List.of("idle", "running", "error");
    public static final EngineState IDLE = new EngineState(false, null, null, "idle");

    /** As sent; a status this agent does not know is {@code error}, none is running or idle from busy. */
    public static EngineState parse(JsonObject json) {
      boolean busy = Fields.optBoolean(json, "busy", false);
      String status = Fields.optString(json, "status", busy ? "running" : "idle");
      return new EngineState(busy, Fields.optString(json, "test_id", null), Fields.optString(json, "command_id", null),
          STATUSES.contains(status) ? status : "error");
    }

    public JsonObject toJson() {
      return new JsonObject().put("busy", busy).put("test_id", testId).put("command_id", commandId)
          .put("status", status);
    }

    /** Whether the benchmark of this test is what the engine runs. */
    public boolean running(String test) {
      return busy && test != null && test.equals(testId);
    }
  }

  /** A request to stop a test's benchmark ({@link #ENGINE_CANCEL}), and its answer. */
  public record Cancel(String testId) {

    public static Cancel parse(JsonObject json) {
      return new Cancel(Fields.optString(json, "test_id", null));
    }

    public JsonObject toJson() {
      return new JsonObject().put("test_id", testId);
    }

    /** Whether the benchmark is gone; the reason when it was not running. */
    public record Answer(boolean cancelled, String reason) {

      public static Answer parse(JsonObject json) {
        return new Answer(Fields.optBoolean(json, "cancelled", false), Fields.optString(json, "reason", null));
      }

      public JsonObject toJson() {
        JsonObject json = new JsonObject().put("cancelled", cancelled);
        Fields.putIfKnown(json, "reason", reason);
        return json;
      }
    }
  }

  /** One line of a run's output ({@link #LOG}). */
  public record RunLine(String commandId, String testId, String line) {

    public static RunLine parse(JsonObject json) {
      return new RunLine(Fields.requireString(json, "command_id"), Fields.optString(json, "test_id", null),
          Fields.optString(json, "line", ""));
    }

    public JsonObject toJson() {
      return new JsonObject().put("command_id", commandId).put("test_id", testId).put("line", line);
    }
  }

  /** A run whose final status or result is spooled ({@link #TEST_ENDED}); either id may be missing. */
  public record RunEnded(String testId, String commandId) {

    public static RunEnded parse(JsonObject json) {
      return new RunEnded(Fields.optString(json, "test_id", null), Fields.optString(json, "command_id", null));
    }

    public JsonObject toJson() {
      return new JsonObject().put("test_id", testId).put("command_id", commandId);
    }
  }
}
