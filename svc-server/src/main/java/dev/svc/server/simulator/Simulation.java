package dev.svc.server.simulator;

import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventType;
import dev.svc.engines.EngineSpec;
import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The simulated run of one quick test on a test agent, driven by timers: queued → running, one log
 * line after each random pause, the result, then completed. Before every line and before the result
 * the test is read again; once it is no longer running (cancelled by the user) the run stops
 * without another word. A test found running (the server restarted mid-run) starts over from its
 * first line and keeps its status.
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
  private final ApiContext api;
  private final String testId;
  private Promise<Void> pause;
  private long timer = -1;
  private boolean closed;

  Simulation(Vertx vertx, ApiContext api, String testId) {
    this.vertx = vertx;
    this.api = api;
    this.testId = testId;
  }

  String testId() {
    return testId;
  }

  /** Runs the simulation; completes with its outcome, or fails when the stores failed. */
  Future<Outcome> run() {
    return api.tests().byId(testId).compose(found -> {
      Optional<QuickTestStatus> status = found.flatMap(t -> QuickTestStatus.parse(t.getString("status")));
      if (status.isEmpty() || (status.get() != QuickTestStatus.QUEUED && status.get() != QuickTestStatus.RUNNING)) {
        return Future.succeededFuture(Outcome.STOPPED);
      }
      JsonObject test = found.get();
      Optional<EngineSpec> engine = api.engines().find(test.getString("engine_name"));
      if (engine.isEmpty()) {
        return api.transitions().move(test, status.get(), QuickTestStatus.FAILED,
            String.format(UNKNOWN_ENGINE, test.getString("engine_name"))).map(v -> Outcome.STOPPED);
      }
      return api.agents().byIdIncludingDeleted(test.getString("agent_id")).compose(agent -> {
        int seed = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
        SimulationPlan plan = SimulationPlan.create(test, agent.orElseGet(JsonObject::new), engine.get(), seed,
            new SplittableRandom(seed), Instant.now());
        Future<Boolean> started = status.get() == QuickTestStatus.RUNNING ? Future.succeededFuture(true)
            : api.transitions().move(test, QuickTestStatus.QUEUED, QuickTestStatus.RUNNING, null);
        return started.compose(ok -> ok ? line(test, plan, 0) : Future.succeededFuture(Outcome.STOPPED));
      });
    }).recover(err -> closed ? Future.succeededFuture(Outcome.INTERRUPTED) : Future.failedFuture(err));
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

  private Future<Outcome> line(JsonObject test, SimulationPlan plan, int index) {
    List<String> lines = plan.lines();
    if (index >= lines.size()) {
      return result(test, plan);
    }
    return pause().compose(v -> stillRunning()).compose(running -> {
      if (!running) {
        return Future.succeededFuture(Outcome.STOPPED);
      }
      String text = lines.get(index);
      return api.tests().appendLogIfRunning(testId, text).compose(stored -> !stored
          ? Future.succeededFuture(Outcome.STOPPED)
          : api.events().append(testId, EventType.LOG, new JsonObject().put("test_id", testId).put("line", text))
              .compose(v -> line(test, plan, index + 1)));
    });
  }

  private Future<Outcome> result(JsonObject test, SimulationPlan plan) {
    return pause().compose(v -> stillRunning()).compose(running -> {
      if (!running) {
        return Future.succeededFuture(Outcome.STOPPED);
      }
      return api.resultRecorder().record(plan.document(), test, test.getString("agent_id"), test.getString("command_id"))
          .compose(resultId -> api.transitions().move(test, QuickTestStatus.RUNNING, QuickTestStatus.COMPLETED, null))
          .map(moved -> moved ? Outcome.COMPLETED : Outcome.STOPPED);
    });
  }

  /** Whether the test is still running: the cancellation check between two iterations. */
  private Future<Boolean> stillRunning() {
    return api.tests().byId(testId)
        .map(t -> t.map(row -> QuickTestStatus.RUNNING.wireName().equals(row.getString("status"))).orElse(false));
  }

  /** Waits a random time between the configured bounds, on a timer. */
  private Future<Void> pause() {
    if (closed) {
      return Future.failedFuture("Simulation of " + testId + " interrupted");
    }
    long min = api.timings().simulatorMinDelayMs();
    long max = Math.max(min, api.timings().simulatorMaxDelayMs());
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
