package dev.svc.server.http;

import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventType;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/** Moves a quick test to a new status and publishes the status event, or reports the conflict. */
final class QuickTestTransitions {

  private QuickTestTransitions() {
  }

  /**
   * Cancels an active test: failed with "Cancelled by user", and a cancel_test command for a real
   * agent that holds it (a simulated test notices between two iterations).
   */
  static Future<Void> cancel(ApiContext api, JsonObject test) {
    QuickTestStatus current = QuickTestStatus.parse(test.getString("status")).orElseThrow();
    if (current.isTerminal()) {
      throw ApiError.conflict("Quick test " + test.getString("id") + " is already " + current.wireName());
    }
    boolean held = current != QuickTestStatus.QUEUED && !Views.flag(test.getValue("agent_is_test"));
    return move(api, test, current, QuickTestStatus.FAILED, CANCELLED)
        .compose(v -> !held ? Future.succeededFuture()
            : api.commands().enqueue(dev.svc.core.Ids.newId(), test.getString("agent_id"), "cancel_test",
                test.getString("id"), new JsonObject().put("test_id", test.getString("id"))));
  }

  static final String CANCELLED = "Cancelled by user";

  static Future<QuickTestStatus> move(ApiContext api, JsonObject test, QuickTestStatus from, QuickTestStatus to,
      String error) {
    String id = test.getString("id");
    if (!from.canMoveTo(to)) {
      throw ApiError.conflict("Quick test " + id + " cannot move from " + from.wireName() + " to " + to.wireName());
    }
    return api.tests().move(id, from, to, error).compose(moved -> {
      if (!moved) {
        throw ApiError.conflict("Quick test " + id + " changed status meanwhile; read it again");
      }
      JsonObject event = new JsonObject().put("test_id", id).put("status", to.wireName())
          .put("command_id", test.getString("command_id"));
      if (error != null) {
        event.put("error", error);
      }
      return api.events().append(id, EventType.STATUS, event).map(v -> to);
    });
  }
}
