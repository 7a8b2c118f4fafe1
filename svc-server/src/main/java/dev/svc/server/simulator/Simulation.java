package dev.svc.server.simulator;

import dev.svc.core.Timestamps;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.engines.EngineSpec;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.store.QuickTestStore.EndedBy;
import dev.svc.server.store.QuickTestStore.LogAppend;
import dev.svc.server.store.StoredQuickTest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The simulated run of one quick test on a test agent, driven by timers: queued → running, one log
 * line after each random pause, the result, then completed. Each line is stored only while the test
 * is running, and the result with the completion only if it still is: once it is not (cancelled by
 * the user) the run stops without another word. A test found running (the server restarted
 * mid-run) continues after its last stored line, with the same plan.
 */
final class Simulation {

  /** How a run ended. */
  enum Outcome {
    /** The result is stored and the test completed. */
    COMPLETED,
    /** The test was no longer active (cancelled, or finished elsewhere); nothing more was written. */
    STOPPED,
    /** The server is shutting down; the test stays as it is and resumes at the next start. */
    INTERRUPTED
  }

  static final String UNKNOWN_ENGINE = "Simulation failed: engine '%s' is not in the engine catalog";

  private final Vertx vertx;
  private final SimulatorServices services;
  private final String testId;
  private Promise<Void> pause;
  private long timer = -1;
  private boolean closed;

  Simulation(Vertx vertx, SimulatorServices services, String testId) {
    this.vertx = vertx;
    this.services = services;
    this.testId = testId;
  }

  String testId() {
    return testId;
  }

  /** Runs the simulation; completes with its outcome, or fails when the stores failed. */
  Future<Outcome> run() {
    return services.tests().byId(testId).compose(found -> {
      Optional<QuickTestStatus> status = found.flatMap(t -> QuickTestStatus.parse(t.status()));
      if (status.isEmpty() || (status.get() != QuickTestStatus.QUEUED && status.get() != QuickTestStatus.RUNNING)) {
        return Future.succeededFuture(Outcome.STOPPED);
      }
      StoredQuickTest test = found.get();
      Optional<EngineSpec> engine = services.engines().find(test.engineName());
      if (engine.isEmpty()) {
        return services.transitions().move(test, status.get(), QuickTestStatus.FAILED,
            String.format(UNKNOWN_ENGINE, test.engineName())).map(v -> Outcome.STOPPED);
      }
      Future<Boolean> started = status.get() == QuickTestStatus.RUNNING ? Future.succeededFuture(true)
          : services.transitions().move(test, QuickTestStatus.QUEUED, QuickTestStatus.RUNNING, null);
      return started.compose(ok -> !ok ? Future.succeededFuture(Outcome.STOPPED) : services.tests().byId(testId)
          .compose(running -> running.isEmpty() ? Future.succeededFuture(Outcome.STOPPED) : resume(running.get(), engine.get())));
    }).recover(err -> closed ? Future.succeededFuture(Outcome.INTERRUPTED) : Future.failedFuture(err));
  }

  /**
   * Plans the run from the test alone (a seed derived from its id, its start time), so a run resumed
   * after a restart prints the same lines with the same figures, and continues after the lines already stored.
   */
  private Future<Outcome> resume(StoredQuickTest test, EngineSpec engine) {
    int seed = seedOf(testId);
    Instant started = Timestamps.parse(test.startedAt()).orElseGet(Instant::now);
    return services.agents().byIdIncludingDeleted(test.agentId()).compose(agent -> {
      SimulationPlan plan = SimulationPlan.create(SimulatedTest.of(test), agent.map(SimulatedHost::of)
          .orElseGet(() -> SimulatedHost.of(null, null, null, null, null, null, null, null, null)), engine, seed,
          new SplittableRandom(seed), started);
      return services.eventStore().lineCount(testId).compose(stored -> line(test, plan, (int) Math.min(stored, plan.lines().size())));
    });
  }

  /** The seed of a test's simulation: the same for every run of that test. */
  static int seedOf(String testId) {
    return Math.max(1, testId.hashCode() & Integer.MAX_VALUE);
  }

  /** Stops the run where it is (server shutdown): no further line, the test keeps its status. */
  void close() {
    closed = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    if (pause != null) {
      pause.tryFail("Simulation of " + testId + " interrupted");
    }
  }

  private Future<Outcome> line(StoredQuickTest test, SimulationPlan plan, int index) {
    List<String> lines = plan.lines();
    if (index >= lines.size()) {
      return result(test, plan);
    }
    String text = lines.get(index);
    return pause().compose(v -> services.events().write(conn -> services.tests().acceptLogs(conn, testId, null)
        .map(outcome -> outcome == LogAppend.STORED ? Written.of(true, Event.testLog(testId, text)) : Written.of(false))))
        .compose(stored -> stored ? line(test, plan, index + 1) : Future.succeededFuture(Outcome.STOPPED));
  }

  /** Stores the result and completes the test in one transaction, unless it stopped running meanwhile (cancelled). */
  private Future<Outcome> result(StoredQuickTest test, SimulationPlan plan) {
    return pause().compose(v -> services.events().write(conn -> services.tests().byId(conn, testId).compose(found -> {
      StoredQuickTest fresh = found.orElse(null);
      if (fresh == null || !QuickTestStatus.RUNNING.wireName().equals(fresh.status())) {
        return Future.succeededFuture(Written.of(Outcome.STOPPED));
      }
      return services.resultRecorder().record(conn, plan.document(), fresh, fresh.agentId(),
          fresh.commandId()).compose(recorded -> services.transitions().move(conn, fresh,
              QuickTestStatus.RUNNING, QuickTestStatus.COMPLETED, null, EndedBy.AGENT).map(moved -> {
                List<Event> events = new ArrayList<>(recorded.events());
                events.addAll(moved);
                return Written.of(Outcome.COMPLETED, events);
              }));
    })));
  }

  /** Waits a random time between the configured bounds, on a timer. */
  private Future<Void> pause() {
    if (closed) {
      return Future.failedFuture("Simulation of " + testId + " interrupted");
    }
    long min = services.timings().simulatorMinDelayMs();
    long max = Math.max(min, services.timings().simulatorMaxDelayMs());
    long delay = Math.max(1, min == max ? min : ThreadLocalRandom.current().nextLong(min, max + 1));
    Promise<Void> promise = Promise.promise();
    pause = promise;
    timer = vertx.setTimer(delay, id -> {
      timer = -1;
      promise.tryComplete();
    });
    return promise.future();
  }
}
