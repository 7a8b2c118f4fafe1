package dev.svc.server.simulator;

import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventType;
import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Moves a simulated test to a new status and publishes the status event, as the API does for a
 * real test. A move that lost the race (the user cancelled meanwhile) changes nothing and answers
 * false.
 */
final class StatusMoves {

  private StatusMoves() {
  }

  static Future<Boolean> move(ApiContext api, JsonObject test, QuickTestStatus from, QuickTestStatus to, String error) {
    String id = test.getString("id");
    if (!from.canMoveTo(to)) {
      return Future.succeededFuture(false);
    }
    return api.tests().move(id, from, to, error).compose(moved -> {
      if (!moved) {
        return Future.succeededFuture(false);
      }
      JsonObject event = new JsonObject().put("test_id", id).put("status", to.wireName())
          .put("command_id", test.getString("command_id"));
      if (error != null) {
        event.put("error", error);
      }
      return api.events().append(id, EventType.STATUS, event).map(v -> true);
    });
  }
}
