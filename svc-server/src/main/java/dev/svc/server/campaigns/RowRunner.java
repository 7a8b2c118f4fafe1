package dev.svc.server.campaigns;

import dev.svc.server.store.StoredAgent;
import dev.svc.server.store.NewQuickTest;
import dev.svc.server.store.StoredQuickTest;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.core.Ids;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventAddresses;
import dev.svc.core.events.SimulationRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.util.function.Consumer;

/**
 * Runs one campaign row to its end: creates its quick test on the campaign's agent (or takes over
 * a test that was active before a restart), watches it through its events and fails it when the
 * per-row timeout passes. The consumer is registered before the test is queued, so no event is missed.
 */
final class RowRunner {

  private final CampaignServices services;
  private final String campaignId;
  private final String agentId;
  private final boolean testAgent;
  private final Consumer<String> onLog;
  private final Runnable onWatching;
  private final Promise<Void> queued = Promise.promise();
  private RowWatch watch;
  private String testId;
  private long timer = -1;

  /**
   * @param onLog takes each log line of the row's test
   * @param onWatching runs once the row's events are watched, before its test is created or read
   */
  RowRunner(CampaignServices services, String campaignId, StoredAgent agent, Consumer<String> onLog, Runnable onWatching) {
    this.services = services;
    this.campaignId = campaignId;
    this.agentId = agent.id();
    this.testAgent = agent.isTestAgent();
    this.onLog = onLog;
    this.onWatching = onWatching;
  }

  /** Creates the row's quick test and completes when it ended. */
  Future<RowOutcome> start(CampaignRow row) {
    testId = Ids.newId();
    String commandId = Ids.newId();
    NewQuickTest test = new NewQuickTest(testId, agentId, row.modelPath(), row.engine(), row.benchmark(), row.suite(),
        commandId, row.force(), campaignId, row.index());
    return RowWatch.open(services.vertx(), testId, onLog).compose(w -> {
      watch = w;
      onWatching.run();
      return services.transitions().queue(test, testAgent);
    }).compose(stored -> {
      if (!stored) {
        watch.settle(new RowOutcome(QuickTestStatus.FAILED, "Agent " + agentId + " was deleted"));
      }
      queued.tryComplete();
      armTimeout();
      return watch.outcome();
    }).onFailure(err -> {
      queued.tryFail(err);
      abandon();
    });
  }

  /** Takes over a row's test that exists already; completes when it ended (at once if it has). */
  Future<RowOutcome> resume(StoredQuickTest test) {
    testId = test.id();
    return RowWatch.open(services.vertx(), testId, onLog).compose(w -> {
      watch = w;
      onWatching.run();
      return services.tests().byId(testId);
    }).compose(found -> {
      if (found.isEmpty()) {
        watch.settle(new RowOutcome(QuickTestStatus.FAILED, "Quick test " + testId + " no longer exists"));
      } else if (!watch.settleFrom(found.get())) {
        simulateIfTestAgent();
        armTimeout();
      }
      queued.tryComplete();
      return watch.outcome();
    }).onFailure(err -> {
      queued.tryFail(err);
      abandon();
    });
  }

  /** Fails the row's test with "Cancelled by user" if it is still active. */
  Future<Boolean> cancel() {
    return testId == null ? Future.succeededFuture(false) : services.transitions().fail(testId, TestTransitions.CANCELLED);
  }

  /** Stops watching and timing without touching the test (the executor is stopping). */
  void abandon() {
    cancelTimer();
    if (watch != null) {
      watch.abandon();
    }
  }

  /** Completes once the row's test exists in the store (created and queued, or taken over). */
  Future<Void> queued() {
    return queued.future();
  }

  private void simulateIfTestAgent() {
    if (testAgent) {
      services.vertx().eventBus().send(EventAddresses.SIMULATOR_RUN, new SimulationRequest(testId).toJson());
    }
  }

  private void armTimeout() {
    long ms = services.timings().campaignRowTimeoutMs();
    if (ms <= 0) {
      return;
    }
    timer = services.vertx().setTimer(ms, id -> {
      timer = -1;
      timeout(ms);
    });
    watch.outcome().onComplete(ar -> cancelTimer());
  }

  private void timeout(long ms) {
    String error = timedOut(ms);
    services.transitions().fail(testId, error)
        .compose(moved -> services.tests().byId(testId))
        .onSuccess(found -> {
          if (found.isEmpty() || !watch.settleFrom(found.get())) {
            watch.settle(new RowOutcome(QuickTestStatus.FAILED, error));
          }
        })
        .onFailure(err -> watch.settle(new RowOutcome(QuickTestStatus.FAILED, error + " (" + err.getMessage() + ")")));
  }

  private void cancelTimer() {
    if (timer >= 0) {
      services.vertx().cancelTimer(timer);
      timer = -1;
    }
  }

  /** "Timed out after 30 minutes" (seconds or milliseconds for the short timeouts of tests). */
  static String timedOut(long ms) {
    if (ms % 60_000 == 0) {
      long minutes = ms / 60_000;
      return "Timed out after " + minutes + (minutes == 1 ? " minute" : " minutes");
    }
    if (ms % 1000 == 0) {
      long seconds = ms / 1000;
      return "Timed out after " + seconds + (seconds == 1 ? " second" : " seconds");
    }
    return "Timed out after " + ms + " ms";
  }
}
