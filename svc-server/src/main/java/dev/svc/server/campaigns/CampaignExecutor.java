package dev.svc.server.campaigns;

import dev.svc.core.domain.CampaignStatus;
import dev.svc.core.events.CampaignSignal;
import dev.svc.core.events.EventAddresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs campaigns: takes launches and cancellations from the event bus, keeps at most one run per
 * campaign, and at start resumes the running campaigns and starts the queued ones (a launch message
 * may have been lost in a restart). Each run is a {@link CampaignRun}.
 */
public final class CampaignExecutor extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(CampaignExecutor.class);

  private final CampaignServices services;
  private final Map<String, CampaignRun> runs = new HashMap<>();
  /** Launched again while the previous run was still winding down: started when it ends. */
  private final Set<String> relaunches = new HashSet<>();
  private boolean stopped;
  /** Told how many campaigns run here whenever that changes (the metrics show it). */
  private final IntConsumer running;

  public CampaignExecutor(CampaignServices services, IntConsumer running) {
    this.services = services;
    this.running = running;
  }

  @Override
  public Future<?> start() {
    Future<Void> launches = vertx.eventBus().<JsonObject>consumer(EventAddresses.CAMPAIGN_LAUNCH,
        m -> launch(CampaignSignal.parse(m.body()).campaignId())).completion();
    Future<Void> cancels = vertx.eventBus().<JsonObject>consumer(EventAddresses.CAMPAIGN_CANCEL,
        m -> cancel(CampaignSignal.parse(m.body()).campaignId())).completion();
    return Future.all(launches, cancels).onSuccess(v -> resumeAll());
  }

  @Override
  public Future<?> stop() {
    stopped = true;
    List.copyOf(runs.values()).forEach(CampaignRun::abandon);
    runs.clear();
    relaunches.clear();
    running.accept(0);
    return Future.succeededFuture();
  }

  private void resumeAll() {
    services.campaigns().withStatus(CampaignStatus.RUNNING)
        .onSuccess(running -> running.forEach(c -> start(c.id(), false)))
        .compose(v -> services.campaigns().withStatus(CampaignStatus.QUEUED))
        .onSuccess(queued -> queued.forEach(c -> launch(c.id())))
        .onFailure(err -> LOG.error("Campaigns not resumed", err));
  }

  private void launch(String campaignId) {
    if (campaignId == null || stopped) {
      return;
    }
    if (runs.containsKey(campaignId)) {
      relaunches.add(campaignId);
      return;
    }
    start(campaignId, true);
  }

  private void cancel(String campaignId) {
    relaunches.remove(campaignId);
    CampaignRun run = runs.get(campaignId);
    if (run != null) {
      run.cancel();
    }
  }

  private void start(String campaignId, boolean launch) {
    if (stopped || runs.containsKey(campaignId)) {
      return;
    }
    CampaignRun run = new CampaignRun(services, campaignId, () -> stopped);
    runs.put(campaignId, run);
    running.accept(runs.size());
    Future<Void> ended = launch ? run.launch() : run.resume();
    ended.onComplete(ar -> {
      if (runs.get(campaignId) == run) {
        runs.remove(campaignId);
        running.accept(stopped ? 0 : runs.size());
      }
      if (ar.failed()) {
        LOG.error("Campaign {} run ended with an error", campaignId, ar.cause());
      }
      if (relaunches.remove(campaignId)) {
        launch(campaignId);
      }
    });
  }
}
