package dev.svc.agent.engine;

import dev.svc.core.protocol.Fields;
import dev.svc.core.protocol.HeartbeatAnswer;
import io.vertx.core.json.JsonObject;

/**
 * One command's record in the {@link CommandJournal}: what the engine accepted and how far the run
 * got, so that a restart can finish what it owed. Its file is the JSON of {@link #toJson}; a file
 * that {@link #parse} refuses is not this journal's.
 *
 * @param payload the command's payload as received
 * @param acceptedAt epoch millis; null in records written before it was kept
 * @param model the local model file the run uses, once resolved
 * @param copied whether the run copied that model from the share (auto_cleanup deletes it)
 * @param pid the local {@code svc run} process, when the run is one
 * @param out the run's output directory, once it started
 * @param exit the run's exit status, once it ended
 * @param reason why the run was stopped or failed
 * @param unswept the run's containers could not be removed yet (Docker did not answer)
 */
record JournalEntry(String commandId, String testId, String type, JsonObject payload, State state, Long acceptedAt,
    String model, boolean copied, Long pid, String out, Integer exit, String reason, boolean unswept) {

  /** accepted → running (benchmark started) → ended (it exited) → done (what it owed is in the uplink's spool). */
  enum State {
    ACCEPTED, RUNNING, ENDED, DONE;

    String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    static State parse(String value) {
      for (State state : values()) {
        if (state.wireName().equals(value)) {
          return state;
        }
      }
      throw new IllegalArgumentException("Unknown journal state '" + value + "'");
    }
  }

  /** A command as the engine accepts it. */
  static JournalEntry accepted(HeartbeatAnswer.Command command, State state) {
    return new JournalEntry(command.commandId(), command.testId(), command.type(), command.payload(), state,
        System.currentTimeMillis(), null, false, null, null, null, null, false);
  }

  static JournalEntry parse(JsonObject json) {
    return new JournalEntry(
        Fields.requireString(json, "command_id"),
        Fields.optString(json, "test_id", null),
        Fields.optString(json, "type", ""),
        Fields.optObject(json, "payload"),
        State.parse(Fields.optString(json, "state", State.ACCEPTED.wireName())),
        Fields.optLong(json, "accepted_at", null, 0, Long.MAX_VALUE),
        Fields.optString(json, "model", null),
        Fields.optBoolean(json, "copied", false),
        Fields.optLong(json, "pid", null, 0, Long.MAX_VALUE),
        Fields.optString(json, "out", null),
        Fields.optInt(json, "exit", null, Integer.MIN_VALUE, Integer.MAX_VALUE),
        Fields.optString(json, "reason", null),
        Fields.optBoolean(json, "unswept", false));
  }

  JsonObject toJson() {
    JsonObject json = new JsonObject().put("command_id", commandId).put("test_id", testId).put("type", type)
        .put("payload", payload).put("state", state.wireName());
    Fields.putIfKnown(json, "accepted_at", acceptedAt);
    Fields.putIfKnown(json, "model", model);
    if (model != null) {
      json.put("copied", copied);
    }
    Fields.putIfKnown(json, "pid", pid);
    Fields.putIfKnown(json, "out", out);
    Fields.putIfKnown(json, "exit", exit);
    Fields.putIfKnown(json, "reason", reason);
    if (unswept) {
      json.put("unswept", true);
    }
    return json;
  }

  /** A benchmark run, as opposed to a cleanup or a cancel. */
  boolean benchmark() {
    return HeartbeatAnswer.RUN_TEST.equals(type) || "run_container".equals(type);
  }

  JournalEntry with(State newState) {
    return new JournalEntry(commandId, testId, type, payload, newState, acceptedAt, model, copied, pid, out, exit,
        reason, unswept);
  }

  JournalEntry withModel(String newModel, boolean newCopied) {
    return new JournalEntry(commandId, testId, type, payload, state, acceptedAt, newModel, newCopied, pid, out, exit,
        reason, unswept);
  }

  JournalEntry withProcess(long newPid, String newOut) {
    return new JournalEntry(commandId, testId, type, payload, state, acceptedAt, model, copied, newPid, newOut, exit,
        reason, unswept);
  }

  JournalEntry withExit(int newExit) {
    return new JournalEntry(commandId, testId, type, payload, state, acceptedAt, model, copied, pid, out, newExit,
        reason, unswept);
  }

  JournalEntry withReason(String newReason) {
    return new JournalEntry(commandId, testId, type, payload, state, acceptedAt, model, copied, pid, out, exit,
        newReason, unswept);
  }

  JournalEntry withUnswept(boolean newUnswept) {
    return new JournalEntry(commandId, testId, type, payload, state, acceptedAt, model, copied, pid, out, exit,
        reason, newUnswept);
  }
}
