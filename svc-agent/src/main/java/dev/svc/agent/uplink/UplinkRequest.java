package dev.svc.agent.uplink;

import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.core.protocol.LogBatch;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.regex.Pattern;

/**
 * A report the engine hands the uplink (the {@code UPLINK_*} addresses of {@link dev.svc.agent.AgentBus}):
 * its protocol message with the test and command it belongs to, checked once before it is spooled.
 *
 * @param body what the spool stores: the message as received, log lines cut to the server's limit on
 *     one line ({@link LogBatch#MAX_LINE_LENGTH}) rather than refused with their batch
 * @param ends whether the run's final status or result is in it (its local log stream ends)
 */
record UplinkRequest(Spool.Kind kind, String testId, String commandId, JsonObject body, boolean ends) {

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  /** The request, or {@link BadMessage} with what is missing. */
  static UplinkRequest parse(Spool.Kind kind, JsonObject body) {
    if (body == null) {
      throw new BadMessage("no body");
    }
    String testId = Fields.optString(body, "test_id", null);
    if (kind != Spool.Kind.RESULT && (testId == null || !ID.matcher(testId).matches())) {
      throw new BadMessage("test_id is required");
    }
    String commandId = Fields.optString(body, "command_id", null);
    return switch (kind) {
      case LOGS -> {
        JsonArray lines = Fields.optArray(body, "lines");
        if (lines == null) {
          throw new BadMessage("lines (a list) is required");
        }
        yield new UplinkRequest(kind, testId, commandId, body.copy().put("lines", cut(lines)), false);
      }
      case STATUS -> {
        String status = Fields.optString(body, "status", null);
        if (status == null) {
          throw new BadMessage("status is required");
        }
        boolean ends = QuickTestStatus.COMPLETED.wireName().equals(status) || QuickTestStatus.FAILED.wireName().equals(status);
        yield new UplinkRequest(kind, testId, commandId, body, ends);
      }
      case RESULT -> {
        if (commandId == null) {
          throw new BadMessage("command_id is required");
        }
        yield new UplinkRequest(kind, testId, commandId, body, true);
      }
    };
  }

  private static JsonArray cut(JsonArray lines) {
    JsonArray out = new JsonArray();
    for (Object line : lines) {
      String text = String.valueOf(line);
      out.add(text.length() > LogBatch.MAX_LINE_LENGTH ? text.substring(0, LogBatch.MAX_LINE_LENGTH) : text);
    }
    return out;
  }
}
