package dev.svc.server.dispatch;

import dev.svc.core.Timestamps;
import dev.svc.core.domain.AgentSettings;
import dev.svc.core.domain.AgentStatus;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.server.Timings;
import dev.svc.server.events.EventLog;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.LiveFleet;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.StoredQuickTest;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer behind dispatch: requeues tests whose lease expired (failing them after
 * {@value #MAX_ATTEMPTS} attempts), marks silent agents offline and fails the running test of an
 * agent that stayed lost longer than a lease. Test agents are never stale. A deployment runs one
 * (a singleton): the database says who is silent, since every node writes the heartbeats it takes.
 */
public final class AgentSweeps extends VerticleBase {

  static final int MAX_ATTEMPTS = 3;
  static final String NOT_STARTED = "Agent did not start the test";
  static final String AGENT_LOST = "Agent lost";

  private static final Logger LOG = LoggerFactory.getLogger(AgentSweeps.class);

  private final AgentStore agents;
  private final LiveFleet fleet;
  private final QuickTestStore tests;
  private final EventLog events;
  private final TestTransitions transitions;
  private final Timings timings;
  private long timer = -1;
  private boolean sweeping;

  public AgentSweeps(AgentStore agents, QuickTestStore tests, EventLog events, TestTransitions transitions,
      Timings timings) {
    this.agents = agents;
    this.fleet = agents.fleet();
    this.tests = tests;
    this.events = events;
    this.transitions = transitions;
    this.timings = timings;
  }

  @Override
  public Future<?> start() {
    timer = vertx.setPeriodic(timings.sweepMs(), id -> sweep());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(timer);
    return Future.succeededFuture();
  }

  private void sweep() {
    if (sweeping) {
      return;
    }
    sweeping = true;
    expireLeases().compose(v -> markSilentAgentsOffline()).compose(v -> failLostTests())
        .onFailure(err -> LOG.error("Sweep of leases and silent agents failed", err))
        .onComplete(ar -> sweeping = false);
  }

  private Future<Void> expireLeases() {
    return tests.expiredLeases(Timestamps.now()).compose(expired -> each(expired, test -> {
      int attempts = test.attempts() == null ? 0 : test.attempts();
      return attempts >= MAX_ATTEMPTS
          ? move(test, QuickTestStatus.DISPATCHED, QuickTestStatus.FAILED, NOT_STARTED)
          : move(test, QuickTestStatus.DISPATCHED, QuickTestStatus.QUEUED, null);
    }));
  }

  private Future<Void> markSilentAgentsOffline() {
    String cutoff = Timestamps.format(Instant.now().minusMillis(timings.minStaleMs()));
    return agents.silentSince(cutoff).compose(silent -> each(silent, agent -> agents.settings(agent.id())
        .compose(settings -> {
          long staleMs = timings.staleMs(AgentSettings.heartbeatIntervalS(settings));
          if (!silentFor(agent.id(), agent.lastHeartbeatAt(), staleMs)) {
            return Future.succeededFuture();
          }
          return events.write(conn -> agents.moveStatus(conn, agent.id(), agent.status(),
              AgentStatus.OFFLINE.wireName()).map(moved -> moved ? Written.of((Void) null, HeartbeatDispatcher.agentStatus(agent.id(),
                  agent.name(), AgentStatus.OFFLINE.wireName(), new JsonObject())) : Written.of((Void) null)))
              .compose(v -> agents.refresh(agent.id()));
        })));
  }

  /**
   * Fails the running test of each agent offline for longer than its stale window plus a lease. One
   * query for the running tests on offline agents (an agent offline for a month is not read again
   * every sweep); its settings and unwritten heartbeats come from memory.
   */
  private Future<Void> failLostTests() {
    return tests.runningOnOfflineAgents().compose(running -> each(running, test -> {
      String agentId = test.agentId();
      int interval = AgentSettings.heartbeatIntervalS(fleet.settings(agentId));
      long lostAfterMs = timings.staleMs(interval) + timings.leaseMs(interval);
      if (!silentFor(agentId, test.agentLastHeartbeatAt(), lostAfterMs)) {
        return Future.succeededFuture();
      }
      return move(test, QuickTestStatus.RUNNING, QuickTestStatus.FAILED, AGENT_LOST);
    }));
  }

  /** Silent for {@code ms}, counting heartbeats not written yet, and never since before this server started. */
  private boolean silentFor(String agentId, String writtenLastHeartbeat, long ms) {
    return fleet.lastHeard(agentId, writtenLastHeartbeat).plusMillis(ms).isBefore(Instant.now());
  }

  // --- helpers ---

  private Future<Void> move(StoredQuickTest test, QuickTestStatus from, QuickTestStatus to, String error) {
    return transitions.move(test, from, to, error).mapEmpty();
  }

  private static <T> Future<Void> each(List<T> rows, java.util.function.Function<T, Future<?>> action) {
    Future<Void> chain = Future.succeededFuture();
    for (T row : rows) {
      chain = chain.compose(v -> action.apply(row)).mapEmpty();
    }
    return chain;
  }
}
