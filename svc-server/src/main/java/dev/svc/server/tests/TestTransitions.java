package dev.svc.server.tests;

import dev.svc.server.store.Flags;
import dev.svc.core.Ids;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventType;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.CommandStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.core.events.EventAddresses;
import io.vertx.core.Future;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;

/**
 * The one way a quick test changes status, for the API, the dispatcher, the simulator and the
 * campaign executor alike: a compare-and-set move that publishes the status event, and failing an
 * active test, which also tells a real agent holding it to stop.
 */
public final class TestTransitions {

  public static final String CANCELLED = "Cancelled by user";
  private static final int RETRIES = 5;

  private final QuickTestStore tests;
  private final CommandStore commands;
  private final EventLog events;
  private final EventBus bus;

  public TestTransitions(QuickTestStore tests, CommandStore commands, EventLog events, EventBus bus) {
    this.tests = tests;
    this.commands = commands;
    this.events = events;
    this.bus = bus;
  }

  /**
   * Creates a queued test (a row of {@link QuickTestStore#insert}) and announces it; a test
   * agent's test goes to the simulator, a real agent's waits for the dispatcher.
   */
  public Future<Void> queue(JsonObject test, boolean onTestAgent) {
    return tests.insert(test).compose(v -> announce(test, QuickTestStatus.QUEUED, null)).map(v -> {
      if (onTestAgent) {
        bus.send(EventAddresses.SIMULATOR_RUN, new JsonObject().put("test_id", test.getString("id")));
      }
      return null;
    });
  }

  /** Publishes a test's status event: {@code {"test_id","status","command_id","error"?}}. */
  public Future<Void> announce(JsonObject test, QuickTestStatus status, String error) {
    String id = test.getString("id");
    JsonObject data = new JsonObject().put("test_id", id).put("status", status.wireName())
        .put("command_id", test.getString("command_id"));
    if (error != null) {
      data.put("error", error);
    }
    return events.append(id, EventType.STATUS, data).mapEmpty();
  }

  /** Moves {@code from} → {@code to} and publishes the status; false when illegal or the status changed meanwhile. */
  public Future<Boolean> move(JsonObject test, QuickTestStatus from, QuickTestStatus to, String error) {
    if (!from.canMoveTo(to)) {
      return Future.succeededFuture(false);
    }
    return tests.move(test.getString("id"), from, to, error)
        .compose(moved -> moved ? announce(test, to, error).map(v -> true) : Future.succeededFuture(false));
  }

  /**
   * Fails a test that is still active (cancel, timeout); a real agent that holds it gets a
   * {@code cancel_test} command, a simulated one notices between two iterations. Completes with
   * false when the test is unknown or already finished.
   */
  public Future<Boolean> fail(String testId, String error) {
    return fail(testId, error, RETRIES);
  }

  private Future<Boolean> fail(String testId, String error, int retries) {
    return tests.byId(testId).compose(found -> {
      QuickTestStatus current = found.flatMap(t -> QuickTestStatus.parse(t.getString("status"))).orElse(null);
      if (current == null || current.isTerminal()) {
        return Future.succeededFuture(false);
      }
      JsonObject test = found.get();
      return move(test, current, QuickTestStatus.FAILED, error).compose(moved -> {
        if (!moved) {
          return retries > 1 ? fail(testId, error, retries - 1) : Future.succeededFuture(false);
        }
        return tellHolder(test, current).map(v -> true);
      });
    });
  }

  private Future<Void> tellHolder(JsonObject test, QuickTestStatus was) {
    if (was == QuickTestStatus.QUEUED || Flags.isTrue(test.getValue("agent_is_test"))) {
      return Future.succeededFuture();
    }
    String id = test.getString("id");
    return commands.enqueue(Ids.newId(), test.getString("agent_id"), "cancel_test", id, new JsonObject().put("test_id", id));
  }
}
