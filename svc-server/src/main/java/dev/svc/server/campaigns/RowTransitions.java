package dev.svc.server.campaigns;

import dev.svc.core.Ids;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventType;
import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Fails an active row's quick test (timeout, or cancellation the executor notices itself): moves it
 * to failed with an error and publishes the status event; a real agent that already holds the test
 * also gets a {@code cancel_test} command (a simulated test notices between two iterations).
 */
final class RowTransitions {

  static final String CANCELLED = "Cancelled by user";
  private static final int ATTEMPTS = 5;

  private final ApiContext api;

  RowTransitions(ApiContext api) {
    this.api = api;
  }

  /** Fails the test if it is still active; completes with whether this call moved it. */
  Future<Boolean> fail(String testId, String error) {
    return fail(testId, error, ATTEMPTS);
  }

  private Future<Boolean> fail(String testId, String error, int attemptsLeft) {
    return api.tests().byId(testId).compose(found -> {
      if (found.isEmpty()) {
        return Future.succeededFuture(false);
      }
      JsonObject test = found.get();
      QuickTestStatus current = QuickTestStatus.parse(test.getString("status")).orElse(null);
      if (current == null || current.isTerminal() || !current.canMoveTo(QuickTestStatus.FAILED)) {
        return Future.succeededFuture(false);
      }
      return api.tests().move(testId, current, QuickTestStatus.FAILED, error).compose(moved -> {
        if (!moved) {
          // its status changed between the read and the move: read it again
          return attemptsLeft > 1 ? fail(testId, error, attemptsLeft - 1) : Future.succeededFuture(false);
        }
        return statusEvent(test, error).compose(v -> cancelOnAgent(test, current)).map(v -> true);
      });
    });
  }

  private Future<Void> statusEvent(JsonObject test, String error) {
    String id = test.getString("id");
    JsonObject data = new JsonObject().put("test_id", id).put("status", QuickTestStatus.FAILED.wireName())
        .put("command_id", test.getString("command_id")).put("error", error);
    return api.events().append(id, EventType.STATUS, data).mapEmpty();
  }

  private Future<Void> cancelOnAgent(JsonObject test, QuickTestStatus was) {
    boolean held = was != QuickTestStatus.QUEUED && !Flags.isTrue(test.getValue("agent_is_test"));
    if (!held) {
      return Future.succeededFuture();
    }
    String id = test.getString("id");
    return api.commands().enqueue(Ids.newId(), test.getString("agent_id"), "cancel_test", id,
        new JsonObject().put("test_id", id));
  }
}
