package dev.svc.perf.fleet;

import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.protocol.LogBatch;
import dev.svc.core.protocol.ResultReport;
import dev.svc.core.protocol.RunTest;
import dev.svc.core.protocol.StatusReport;
import dev.svc.engines.EngineSpec;
import dev.svc.server.simulator.SimulationPlan;
import dev.svc.server.simulator.SimulatedTest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One {@code run_test} on a virtual agent, reported as svc-agent's engine and uplink report a run:
 * {@code running}, the log lines in numbered batches ({@code seq}: a retry is stored once), then the
 * result ({@code metrics.json}, which completes the test). The lines and the document are those the
 * server's own test-agent simulator would produce for the test ({@link SimulationPlan}); the run is
 * quick (about two seconds), paced by timers on the agent's event loop. A report the server could
 * not answer is sent again, as the uplink does; a refusal ends the run as failed.
 */
final class SimulatedRun {

  static final int BATCH_LINES = 5;
  private static final int ATTEMPTS = 5;

  final String testId;
  private final String commandId;
  private final VirtualAgent agent;
  private final RunTest payload;
  private long timer = -1;
  private boolean running;
  private boolean stopped;

  SimulatedRun(VirtualAgent agent, String testId, String commandId, RunTest payload) {
    this.agent = agent;
    this.testId = testId;
    this.commandId = commandId;
    this.payload = payload;
  }

  boolean running() {
    return running;
  }

  void start() {
    Optional<EngineSpec> engine = agent.run.engines.find(payload.engineName());
    if (engine.isEmpty()) {
      // as the real agent: a test it cannot run is reported failed
      pause(100).compose(v -> report("status failed", HttpMethod.POST, "/api/v1/quicktest/" + testId + "/status",
          new StatusReport(QuickTestStatus.FAILED, "Engine '" + payload.engineName()
              + "' is not in this agent's engine catalog").toJson())).onComplete(ar -> finish(false));
      return;
    }
    SimulatedTest test = new SimulatedTest(payload.modelPath(), payload.engineName(), payload.benchmarkName(),
        payload.suiteName());
    int seed = Math.max(1, testId.hashCode() & Integer.MAX_VALUE);
    SimulationPlan plan = SimulationPlan.create(test, agent.run.host(agent.agentId, agent.credentials.name()),
        engine.get(), seed, new SplittableRandom(seed), Instant.now());
    pause(100 + ThreadLocalRandom.current().nextLong(200))
        .compose(v -> report("status running", HttpMethod.POST, "/api/v1/quicktest/" + testId + "/status",
            new StatusReport(QuickTestStatus.RUNNING, null).toJson()))
        .compose(v -> {
          running = true;
          return logs(plan.lines(), 0);
        })
        .compose(v -> pause(100 + ThreadLocalRandom.current().nextLong(200)))
        .compose(v -> report("result", HttpMethod.POST, "/api/v1/agents/" + agent.agentId + "/results",
            new ResultReport(commandId, testId, QuickTestStatus.COMPLETED.wireName(), null, plan.document()).toJson()))
        .onComplete(ar -> finish(ar.succeeded()));
  }

  /** Stops where it is (cancel_test, or the fleet stopping): nothing more is sent. */
  void stop() {
    stopped = true;
    agent.run.vertx.cancelTimer(timer);
  }

  private void finish(boolean completed) {
    if (stopped) {
      return;
    }
    stopped = true;
    if (completed) {
      agent.run.stats.testsCompleted.increment();
      agent.run.completed.add(testId);
    } else {
      agent.run.stats.testsFailed.increment();
    }
    agent.run.ended.add(testId);
    agent.ended(this);
  }

  /** The lines from {@code from} on, one batch after another, each numbered by its place (seq from 1). */
  private Future<Void> logs(List<String> lines, int from) {
    if (from >= lines.size()) {
      return Future.succeededFuture();
    }
    int to = Math.min(lines.size(), from + BATCH_LINES);
    JsonObject batch = new LogBatch(lines.subList(from, to), (long) (from / BATCH_LINES + 1)).toJson();
    return pause(200 + ThreadLocalRandom.current().nextLong(300))
        .compose(v -> report("logs", HttpMethod.POST, "/api/v1/quicktest/" + testId + "/logs", batch))
        .compose(v -> logs(lines, to));
  }

  /** Sends a report until the server answers it; fails on a refusal (counted) or once stopped. */
  private Future<Void> report(String what, HttpMethod method, String path, JsonObject body) {
    Promise<Void> done = Promise.promise();
    attempt(what, method, path, body.toBuffer(), 0, done);
    return done.future();
  }

  private void attempt(String what, HttpMethod method, String path, Buffer body, int attempt, Promise<Void> done) {
    if (stopped) {
      done.tryFail("stopped");
      return;
    }
    agent.send(method, path, body).onComplete(ar -> {
      if (stopped) {
        done.tryFail("stopped");
        return;
      }
      if (ar.succeeded() && ar.result().ok()) {
        done.complete();
        return;
      }
      agent.run.stats.error(what + ": " + VirtualAgent.why(ar));
      if ((ar.succeeded() && !ar.result().transientFailure()) || attempt + 1 >= ATTEMPTS) {
        done.tryFail(what + " refused");
        return;
      }
      long delay = Math.min(10_000, 500L << attempt);
      timer = agent.run.vertx.setTimer(delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1),
          t -> attempt(what, method, path, body, attempt + 1, done));
    });
  }

  private Future<Void> pause(long ms) {
    if (stopped) {
      return Future.failedFuture("stopped");
    }
    Promise<Void> promise = Promise.promise();
    timer = agent.run.vertx.setTimer(ms, t -> promise.tryComplete());
    return promise.future();
  }
}
