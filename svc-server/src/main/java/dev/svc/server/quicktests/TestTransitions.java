package dev.svc.server.quicktests;

import dev.svc.core.Ids;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.SimulationRequest;
import dev.svc.core.events.EventType;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.store.CommandStore;
import dev.svc.server.store.NewQuickTest;
import dev.svc.server.store.StoredQuickTest;
import dev.svc.server.store.LiveFleet;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.QuickTestStore.EndedBy;
import dev.svc.server.store.Sql;
import io.vertx.core.Future;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayList;
import java.util.List;

/**
 * The one way a quick test changes status, for the API, the dispatcher, the simulator and the
 * campaign executor alike: a compare-and-set move stored in one transaction with its status event
 * (through {@link EventLog#write}), and failing an active test, which also tells a real agent
 * holding it to stop. "At most one dispatched or running test per agent" is the database's rule
 * (a unique index); a move that would break it is refused like a lost race.
 */
public final class TestTransitions {

  public static final String CANCELLED = "Cancelled by user";
  public static final String AGENT_DELETED = "Agent deleted";
  private static final int RETRIES = 5;

  private final QuickTestStore tests;
  private final CommandStore commands;
  private final EventLog events;
  private final EventBus bus;
  private final LiveFleet fleet;

  /** {@code fleet} hears of every queued test and every stored command once committed, for its agent's next heartbeat. */
  public TestTransitions(QuickTestStore tests, CommandStore commands, EventLog events, EventBus bus, LiveFleet fleet) {
    this.tests = tests;
    this.commands = commands;
    this.events = events;
    this.bus = bus;
    this.fleet = fleet;
  }

  /**
   * Creates a queued test (a row of {@link QuickTestStore#insert}) and announces it; a test
   * agent's test goes to the simulator, a real agent's waits for the dispatcher. False (nothing
   * stored) when the agent does not exist any more.
   */
  public Future<Boolean> queue(NewQuickTest test, boolean onTestAgent) {
    return events.write(conn -> tests.insert(conn, test).map(stored -> stored
        ? Written.of(true, statusEvent(test.id(), test.commandId(), QuickTestStatus.QUEUED, null)) : Written.of(false)))
        .map(stored -> {
          if (stored && onTestAgent) {
            bus.send(EventAddresses.SIMULATOR_RUN, new SimulationRequest(test.id()).toJson());
          } else if (stored) {
            fleet.work().mark(test.agentId());
          }
          return stored;
        });
  }

  /**
   * Hands a queued test to its agent with a lease; false when it was no longer queued or the agent
   * holds another active test (whoever dispatched it: another heartbeat, another server node).
   */
  public Future<Boolean> dispatch(StoredQuickTest test, String leaseExpiresAt) {
    return refusedAsLost(events.write(conn -> tests.dispatch(conn, test.id(), leaseExpiresAt)
        .map(won -> won ? Written.of(true, statusEvent(test, QuickTestStatus.DISPATCHED, null)) : Written.of(false))));
  }

  /** The status event of a test: {@code {"test_id","status","command_id","error"?}}. */
  public static Event statusEvent(StoredQuickTest test, QuickTestStatus status, String error) {
    return statusEvent(test.id(), test.commandId(), status, error);
  }

  private static Event statusEvent(String id, String commandId, QuickTestStatus status, String error) {
    JsonObject data = new JsonObject().put("test_id", id).put("status", status.wireName())
        .put("command_id", commandId);
    if (error != null) {
      data.put("error", error);
    }
    return new Event(id, EventType.STATUS, data);
  }

  /**
   * Moves {@code from} → {@code to} (the server's decision) and publishes the status; false when
   * illegal, when the status changed meanwhile, or when running would give the agent a second active test.
   */
  public Future<Boolean> move(StoredQuickTest test, QuickTestStatus from, QuickTestStatus to, String error) {
    return move(test, from, to, error, EndedBy.SERVER);
  }

  /** Like {@link #move(StoredQuickTest, QuickTestStatus, QuickTestStatus, String)}, saying who ends the test. */
  public Future<Boolean> move(StoredQuickTest test, QuickTestStatus from, QuickTestStatus to, String error, EndedBy by) {
    if (!from.canMoveTo(to)) {
      return Future.succeededFuture(false);
    }
    return refusedAsLost(events.write(conn -> move(conn, test, from, to, error, by)
        .map(moved -> moved.isEmpty() ? Written.of(false) : Written.of(true, moved)))).onSuccess(moved -> {
          if (moved && to == QuickTestStatus.QUEUED) {
            fleet.work().mark(test.agentId());
          }
        });
  }

  /**
   * The move inside a caller's transaction: the events it causes (empty when it did not happen).
   * Must run after anything else the caller's write checks, since a refused move ends the write.
   */
  public Future<List<Event>> move(SqlConnection conn, StoredQuickTest test, QuickTestStatus from, QuickTestStatus to,
      String error, EndedBy by) {
    if (!from.canMoveTo(to)) {
      return Future.succeededFuture(List.of());
    }
    return tests.move(conn, test.id(), from, to, error, by)
        .map(moved -> moved ? List.of(statusEvent(test, to, error)) : List.of());
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
      QuickTestStatus current = found.flatMap(t -> QuickTestStatus.parse(t.status())).orElse(null);
      if (current == null || current.isTerminal()) {
        return Future.succeededFuture(false);
      }
      StoredQuickTest test = found.get();
      return events.write(conn -> failHeld(conn, test, current, error)
          .map(moved -> moved.isEmpty() ? Written.of(false) : Written.of(true, moved)))
          .onSuccess(moved -> {
            if (moved) {
              fleet.commands().mark(test.agentId());
            }
          })
          .compose(moved -> moved || retries <= 1 ? Future.succeededFuture(moved) : fail(testId, error, retries - 1));
    });
  }

  /**
   * Fails every test an agent holds (queued, dispatched or running) in the caller's transaction:
   * the agent is deleted, so none of them would ever end. Returns their status events.
   */
  public Future<List<Event>> failAllHeldBy(SqlConnection conn, String agentId, String error) {
    return tests.heldBy(conn, agentId).compose(held -> {
      List<Event> out = new ArrayList<>();
      Future<Void> chain = Future.succeededFuture();
      for (StoredQuickTest test : held) {
        QuickTestStatus current = QuickTestStatus.parse(test.status()).orElseThrow();
        chain = chain.compose(v -> tests.move(conn, test.id(), current, QuickTestStatus.FAILED, error,
            EndedBy.SERVER)).map(moved -> {
              if (moved) {
                out.add(statusEvent(test, QuickTestStatus.FAILED, error));
              }
              return null;
            });
      }
      return chain.compose(v -> commands.dropAll(conn, agentId)).map(v -> out);
    });
  }

  /** Fails a test and, when a real agent holds it, queues its cancel_test, in one transaction. */
  private Future<List<Event>> failHeld(SqlConnection conn, StoredQuickTest test, QuickTestStatus current, String error) {
    return move(conn, test, current, QuickTestStatus.FAILED, error, EndedBy.SERVER).compose(moved -> {
      if (moved.isEmpty() || current == QuickTestStatus.QUEUED || test.agentIsTest()) {
        return Future.succeededFuture(moved);
      }
      String id = test.id();
      return commands.enqueue(conn, Ids.newId(), test.agentId(), "cancel_test", id,
          new JsonObject().put("test_id", id)).map(v -> moved);
    });
  }

  /** A write refused by the one-active-test index is a lost race: the test stays as it was. */
  private static Future<Boolean> refusedAsLost(Future<Boolean> write) {
    return write.recover(err -> Sql.isUniqueViolation(err) ? Future.succeededFuture(false) : Future.failedFuture(err));
  }
}
