package dev.svc.server.simulator;

import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.SimulationRequest;
import dev.svc.server.db.StorageFault;
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
 * Runs the quick tests of test agents as simulations (mission "Test agents"). A test agent stands
 * for one GPU host: it runs one test at a time, oldest first, and the others wait queued. Each
 * {@code {"test_id"}} sent to {@link EventAddresses#SIMULATOR_RUN} wakes that test's agent, and at
 * start every test agent with a queued or running test resumes (the server may have stopped
 * mid-run). When a simulation ends, {@code {"test_id","outcome"}} is published on {@link #FINISHED}
 * (outcome {@code completed}, {@code stopped} when the test was cancelled, {@code failed}, or
 * {@code interrupted} at shutdown), and the agent takes its next test. A simulation cut by a storage
 * fault (the database locked or away, the disk full) resumes after its last stored line a little later.
 */
public final class TestAgentSimulator extends VerticleBase {

  /** Publishes {@code {"test_id","outcome"}} when a simulation ends; nothing is stored for it. */
  public static final String FINISHED = EventAddresses.SIMULATOR_FINISHED;

  static final String FAILED_PREFIX = "Simulation failed: ";
  /** How long a simulation waits for the database to come back (StorageFault) before it goes on. */
  static final long STORAGE_RETRY_MS = 2_000;

  private static final Logger LOG = LoggerFactory.getLogger(TestAgentSimulator.class);

  private final SimulatorServices services;
  /** Test agents busy: looking for their next test, simulating it, or failing a broken one. */
  private final Set<String> busy = new HashSet<>();
  private final Map<String, Simulation> active = new HashMap<>();
  private final Set<Long> retryTimers = new HashSet<>();
  private boolean stopping;

  public TestAgentSimulator(SimulatorServices services) {
    this.services = services;
  }

  @Override
  public Future<?> start() {
    return vertx.eventBus().<JsonObject>consumer(EventAddresses.SIMULATOR_RUN,
        message -> wake(message.body() == null ? null : SimulationRequest.parse(message.body()).testId()))
        .completion()
        .compose(v -> services.tests().testAgentsWithWork())
        .map(agents -> {
          if (!agents.isEmpty()) {
            LOG.info("Resuming the simulated tests of {} test agent(s)", agents.size());
          }
          agents.forEach(this::next);
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

  /** A test was queued (or taken over by a campaign): its agent runs it when it has nothing else. */
  private void wake(String testId) {
    if (testId == null || testId.isBlank() || stopping) {
      return;
    }
    services.tests().byId(testId).onSuccess(found -> found.ifPresent(test -> next(test.agentId())))
        .onFailure(err -> LOG.error("Quick test {} not read for its simulation", testId, err));
  }

  /** Starts the agent's next test (its running one, else its oldest queued) unless it is busy. */
  private void next(String agentId) {
    if (agentId == null || stopping || !busy.add(agentId)) {
      return;
    }
    services.tests().nextOnTestAgent(agentId).onComplete(ar -> {
      if (ar.failed() || ar.result().isEmpty() || stopping) {
        if (ar.failed()) {
          LOG.error("Next simulated test of test agent {} not read", agentId, ar.cause());
        }
        busy.remove(agentId);
        return;
      }
      launch(agentId, ar.result().get().id());
    });
  }

  private void launch(String agentId, String testId) {
    Simulation simulation = new Simulation(vertx, services, testId);
    active.put(agentId, simulation);
    simulation.run().onComplete(ar -> {
      active.remove(agentId);
      if (ar.succeeded()) {
        finished(testId, ar.result().name());
        done(agentId);
      } else if (stopping) {
        finished(testId, Simulation.Outcome.INTERRUPTED.name());
        busy.remove(agentId);
      } else if (StorageFault.of(ar.cause()).isPresent()) {
        // the database is away for a while (locked, restarting, disk full), not the test broken: the
        // run goes on later after its last stored line, with the same plan, as after a restart
        LOG.warn("Simulation of quick test {} paused: {}; resuming in {} ms", testId, ar.cause().toString(),
            STORAGE_RETRY_MS);
        resumeSoon(agentId, testId);
      } else {
        LOG.error("Simulation of quick test {} failed", testId, ar.cause());
        failSoon(agentId, testId, ar.cause());
      }
    });
  }

  private void resumeSoon(String agentId, String testId) {
    long[] id = new long[1];
    id[0] = vertx.setTimer(STORAGE_RETRY_MS, t -> {
      retryTimers.remove(id[0]);
      if (stopping) {
        busy.remove(agentId);
        return;
      }
      launch(agentId, testId);
    });
    retryTimers.add(id[0]);
  }

  /** The agent finished a test: it takes the next one. */
  private void done(String agentId) {
    busy.remove(agentId);
    next(agentId);
  }

  /**
   * Fails a test whose simulation broke, after a pause: when the failure came from the server
   * shutting down, this verticle is undeployed first and the timer never fires, so the test resumes
   * at the next start instead.
   */
  private void failSoon(String agentId, String testId, Throwable cause) {
    long[] id = new long[1];
    id[0] = vertx.setTimer(Math.max(1, services.timings().simulatorMaxDelayMs()), t -> {
      retryTimers.remove(id[0]);
      if (stopping) {
        return;
      }
      String reason = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
      String error = FAILED_PREFIX + (reason.length() > 1000 ? reason.substring(0, 1000) : reason);
      services.tests().byId(testId).compose(found -> {
        if (found.isEmpty()) {
          return Future.succeededFuture(false);
        }
        QuickTestStatus status = QuickTestStatus.parse(found.get().status()).orElse(QuickTestStatus.FAILED);
        return services.transitions().move(found.get(), status, QuickTestStatus.FAILED, error);
      }).onComplete(ar -> {
        if (ar.failed()) {
          LOG.error("Could not fail quick test {} after its simulation broke", testId, ar.cause());
        }
        finished(testId, "failed");
        done(agentId);
      });
    });
    retryTimers.add(id[0]);
  }

  private void finished(String testId, String outcome) {
    vertx.eventBus().publish(FINISHED,
        new JsonObject().put("test_id", testId).put("outcome", outcome.toLowerCase(Locale.ROOT)));
  }
}
