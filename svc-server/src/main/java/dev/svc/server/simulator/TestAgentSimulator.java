package dev.svc.server.simulator;

import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventAddresses;
import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the quick tests of test agents as simulations (mission "Test agents"): each
 * {@code {"test_id"}} sent to {@link EventAddresses#SIMULATOR_RUN} starts one, and at start every
 * queued or running test of a test agent resumes, since the server may have stopped mid-run. When a
 * simulation ends, {@code {"test_id","outcome"}} is published on {@link #FINISHED} (outcome
 * {@code completed}, {@code stopped} when the test was cancelled, {@code failed}, or
 * {@code interrupted} at shutdown).
 */
public final class TestAgentSimulator extends VerticleBase {

  /** Publishes {@code {"test_id","outcome"}} when a simulation ends; nothing is stored for it. */
  public static final String FINISHED = EventAddresses.SIMULATOR_FINISHED;

  static final String FAILED_PREFIX = "Simulation failed: ";

  private static final Logger LOG = LoggerFactory.getLogger(TestAgentSimulator.class);

  private final ApiContext api;
  private final Map<String, Simulation> active = new HashMap<>();
  private final Set<Long> retryTimers = new HashSet<>();
  private boolean stopping;

  public TestAgentSimulator(ApiContext api) {
    this.api = api;
  }

  @Override
  public Future<?> start() {
    return vertx.eventBus().<JsonObject>consumer(EventAddresses.SIMULATOR_RUN,
        message -> launch(message.body() == null ? null : message.body().getString("test_id")))
        .completion()
        .compose(v -> api.tests().activeOnTestAgents())
        .map(tests -> {
          if (!tests.isEmpty()) {
            LOG.info("Resuming {} simulated test(s) of test agents", tests.size());
          }
          tests.forEach(test -> launch(test.getString("id")));
          return null;
        });
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    retryTimers.forEach(vertx::cancelTimer);
    retryTimers.clear();
    // closing a simulation completes it, which removes it from the map
    java.util.List.copyOf(active.values()).forEach(Simulation::close);
    return Future.succeededFuture();
  }

  private void launch(String testId) {
    if (testId == null || testId.isBlank() || stopping || active.containsKey(testId)) {
      return;
    }
    Simulation simulation = new Simulation(vertx, api, testId);
    active.put(testId, simulation);
    simulation.run().onComplete(ar -> {
      active.remove(testId);
      if (ar.succeeded()) {
        finished(testId, ar.result().name());
      } else if (stopping) {
        finished(testId, Simulation.Outcome.INTERRUPTED.name());
      } else {
        LOG.error("Simulation of quick test {} failed", testId, ar.cause());
        failSoon(testId, ar.cause());
      }
    });
  }

  /**
   * Fails a test whose simulation broke, after a pause: when the failure came from the server
   * shutting down, this verticle is undeployed first and the timer never fires, so the test resumes
   * at the next start instead.
   */
  private void failSoon(String testId, Throwable cause) {
    long[] id = new long[1];
    id[0] = vertx.setTimer(Math.max(1, api.timings().simulatorMaxDelayMs()), t -> {
      retryTimers.remove(id[0]);
      if (stopping) {
        return;
      }
      String reason = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
      String error = FAILED_PREFIX + (reason.length() > 1000 ? reason.substring(0, 1000) : reason);
      api.tests().byId(testId).compose(found -> {
        if (found.isEmpty()) {
          return Future.succeededFuture(false);
        }
        QuickTestStatus status = QuickTestStatus.parse(found.get().getString("status")).orElse(QuickTestStatus.FAILED);
        return api.transitions().move(found.get(), status, QuickTestStatus.FAILED, error);
      }).onComplete(ar -> {
        if (ar.failed()) {
          LOG.error("Could not fail quick test {} after its simulation broke", testId, ar.cause());
        }
        finished(testId, "failed");
      });
    });
    retryTimers.add(id[0]);
  }

  private void finished(String testId, String outcome) {
    vertx.eventBus().publish(FINISHED,
        new JsonObject().put("test_id", testId).put("outcome", outcome.toLowerCase(Locale.ROOT)));
  }
}
