package dev.svc.server.campaigns;

import dev.svc.server.store.StoredAgent;
import dev.svc.core.domain.CampaignStatus;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventType;
import dev.svc.server.db.StorageFault;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import dev.svc.server.store.StoredCampaign;
import dev.svc.server.store.StoredQuickTest;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine of one campaign's execution: queued → running, then its rows one at a time
 * (each started only after the previous one ended), counters after each row, and the end: running →
 * completed, failed (its agent is gone) or a stop because the campaign was cancelled meanwhile.
 * Resuming after a restart continues the current pass at its first unfinished row. A pass is the
 * set of rows created since the campaign last became running (a relaunch runs every row again).
 */
final class CampaignRun {

  private static final Logger LOG = LoggerFactory.getLogger(CampaignRun.class);
  private static final String DELETED = "deleted";

  /** After a storage fault, the campaign resumes from the database this much later. */
  static final long STORAGE_FAULT_RESUME_MS = 2000;

  private final CampaignServices services;
  private final String id;
  private final BooleanSupplier stopped;
  private final CampaignLog log;
  private final Promise<Void> done = Promise.promise();
  private List<CampaignRow> rows = List.of();
  private StoredAgent agent;
  private RowRunner current;
  private boolean cancelRequested;
  private int succeeded;
  private int failed;
  private int position;
  /** A storage fault stopped this pass and a new one is due ({@link #resumeLater}). */
  private boolean resuming;

  CampaignRun(CampaignServices services, String campaignId, BooleanSupplier stopped) {
    this.services = services;
    this.id = campaignId;
    this.stopped = stopped;
    this.log = new CampaignLog(services, campaignId);
  }

  /** Runs a queued campaign: moves it to running, then runs its rows. */
  Future<Void> launch() {
    move(CampaignStatus.QUEUED, CampaignStatus.RUNNING, null).onSuccess(moved -> {
      if (moved) {
        prepare();
      } else {
        // no longer queued (cancelled meanwhile, or another run took it): nothing to do
        done.tryComplete();
      }
    }).onFailure(this::crashed);
    return done.future();
  }

  /** Continues a running campaign (after a restart) at its first unfinished row. */
  Future<Void> resume() {
    prepare();
    return done.future();
  }

  /** The campaign was cancelled: create no further row and fail the row in flight if it is still active. */
  void cancel() {
    cancelRequested = true;
    if (current != null) {
      RowRunner row = current;
      row.queued().compose(v -> row.cancel())
          .onFailure(err -> LOG.warn("Campaign {}: in-flight row not cancelled: {}", id, err.getMessage()));
    }
  }

  /** The executor stops: stop watching, leave the campaign as it is (it resumes at the next start). */
  void abandon() {
    if (current != null) {
      current.abandon();
    }
    done.tryComplete();
  }

  // --- preparation: the rows, the agent and what this pass already did ---

  private void prepare() {
    services.campaigns().byId(id).compose(found -> {
      if (found.isEmpty() || !isRunning(found.get())) {
        done.tryComplete();
        return Future.succeededFuture();
      }
      StoredCampaign campaign = found.get();
      rows = CampaignMatrix.rows(CampaignConfig.stored(campaign.configObject()));
      return services.agents().byId(campaign.agentId()).compose(live -> {
        if (live.isEmpty()) {
          failCampaign("Agent " + campaign.agentId() + " was deleted", 0);
          return Future.succeededFuture();
        }
        agent = live.get();
        return services.campaigns().tests(id).map(tests -> {
          begin(campaign, rowsOfThisPass(tests, campaign.startedAt()));
          return null;
        });
      });
    }).onFailure(this::crashed);
  }

  /** The latest test of each row created since the campaign became running. */
  private static Map<Integer, StoredQuickTest> rowsOfThisPass(List<StoredQuickTest> tests, String startedAt) {
    Map<Integer, StoredQuickTest> byRow = new HashMap<>();
    for (StoredQuickTest test : tests) {
      Integer row = test.campaignRow();
      String created = test.createdAt();
      if (row == null || (startedAt != null && created != null && created.compareTo(startedAt) < 0)) {
        continue;
      }
      byRow.put(row, test); // tests come ordered by row, then creation: the last one wins
    }
    return byRow;
  }

  private void begin(StoredCampaign campaign, Map<Integer, StoredQuickTest> pass) {
    int next = 0;
    while (next < rows.size() && pass.containsKey(next) && isTerminal(pass.get(next))) {
      if (QuickTestStatus.COMPLETED.wireName().equals(pass.get(next).status())) {
        succeeded++;
      } else {
        failed++;
      }
      next++;
    }
    StoredQuickTest inFlight = pass.get(next);
    String agentName = agent.label();
    if (next == 0 && inFlight == null) {
      log.line("Campaign '" + campaign.name() + "' started: " + rows.size() + " runs on agent " + agentName);
    } else {
      log.line("Campaign resumed at run " + Math.min(next + 1, rows.size()) + "/" + rows.size() + " ("
          + (succeeded + failed) + " already finished) on agent " + agentName);
    }
    int first = next;
    services.campaigns().counters(id, succeeded, failed, 0)
        .onSuccess(v -> step(first, inFlight))
        .onFailure(this::crashed);
  }

  // --- the loop: one row at a time ---

  private void step(int index, StoredQuickTest inFlight) {
    position = index;
    if (stopped.getAsBoolean() || done.future().isComplete()) {
      done.tryComplete();
      return;
    }
    if (index >= rows.size()) {
      finish();
      return;
    }
    services.campaigns().byId(id).compose(found -> {
      if (cancelRequested || found.isEmpty() || !isRunning(found.get())) {
        stopHere(index, found.map(StoredCampaign::status).orElse(DELETED));
        return Future.succeededFuture();
      }
      return services.agents().byId(agent.id()).map(live -> {
        if (live.isEmpty()) {
          failCampaign("Agent " + agent.id() + " was deleted", index);
        } else {
          runRow(index, inFlight);
        }
        return null;
      });
    }).onFailure(this::crashed);
  }

  private void runRow(int index, StoredQuickTest inFlight) {
    if (cancelRequested && inFlight == null) {
      stopHere(index, CampaignStatus.CANCELLED.wireName());
      return;
    }
    CampaignRow row = rows.get(index);
    String prefix = "[" + (index + 1) + "/" + rows.size() + "] ";
    // the row's own line is queued once its events are watched: before any line of its test
    String announce = prefix + row.label() + (inFlight != null ? " (resumed)" : "");
    RowRunner runner = new RowRunner(services, id, agent, line -> log.line(prefix + line), () -> log.line(announce));
    current = runner;
    Future<RowOutcome> outcome = inFlight != null ? runner.resume(inFlight) : runner.start(row);
    // a cancel that arrived while the row's test was being created found no test to fail: fail it now
    runner.queued().onSuccess(queued -> {
      if (cancelRequested) {
        runner.cancel();
      }
    });
    outcome.compose(result -> {
      current = null;
      if (result.succeeded()) {
        succeeded++;
      } else {
        failed++;
      }
      log.line(prefix + result.describe());
      return services.campaigns().counters(id, succeeded, failed, 0);
    }).onSuccess(counted -> step(index + 1, null)).onFailure(this::crashed);
  }

  // --- the ends ---

  private void finish() {
    int total = rows.size();
    // a cancel of the last row's test ends here too: the campaign is cancelled, not finished
    if (cancelRequested) {
      stopHere(total, CampaignStatus.CANCELLED.wireName());
      return;
    }
    services.campaigns().byId(id).onSuccess(found -> {
      if (found.isEmpty() || !isRunning(found.get())) {
        stopHere(total, found.map(StoredCampaign::status).orElse(DELETED));
      } else {
        complete(total);
      }
    }).onFailure(this::crashed);
  }

  private void complete(int total) {
    log.line("Campaign finished: " + succeeded + " of " + total + " runs succeeded, " + failed + " failed");
    if (total > 0 && failed == total) {
      log.line("All " + total + " runs failed");
    }
    log.flushed()
        .compose(v -> move(CampaignStatus.RUNNING, CampaignStatus.COMPLETED, null))
        .compose(moved -> {
          if (moved) {
            return Future.succeededFuture();
          }
          return services.campaigns().byId(id).compose(found -> {
            stopHere(total, found.map(StoredCampaign::status).orElse(DELETED));
            return Future.succeededFuture();
          });
        })
        .onSuccess(v -> done.tryComplete())
        .onFailure(this::crashed);
  }

  /** The campaign is no longer running (cancelled): no further row; the status stays as it is. */
  private void stopHere(int nextIndex, String status) {
    if (DELETED.equals(status)) {
      done.tryComplete(); // nothing left to write to
      return;
    }
    int skipped = Math.max(0, rows.size() - nextIndex);
    String line = cancelRequested || CampaignStatus.CANCELLED.wireName().equals(status)
        ? "Campaign cancelled"
        : "Campaign stopped: it is " + status;
    log.line(line + " (" + succeeded + " succeeded, " + failed + " failed, " + skipped + " not run)");
    services.campaigns().counters(id, succeeded, failed, skipped)
        .compose(v -> log.flushed())
        .onComplete(ar -> done.tryComplete());
  }

  /** Fails the campaign (running → failed) with an error in its log and its status event. */
  private void failCampaign(String error, int nextIndex) {
    int skipped = Math.max(0, rows.size() - nextIndex);
    log.line("Campaign failed: " + error);
    services.campaigns().counters(id, succeeded, failed, skipped)
        .compose(v -> log.flushed())
        .compose(v -> move(CampaignStatus.RUNNING, CampaignStatus.FAILED, error))
        .onComplete(ar -> {
          if (ar.failed()) {
            LOG.error("Campaign {} could not be marked failed", id, ar.cause());
          }
          done.tryComplete();
        });
  }

  /** An unexpected fault (store, event log): fail the campaign unless the executor is stopping. */
  private void crashed(Throwable err) {
    if (done.future().isComplete()) {
      return;
    }
    if (current != null) {
      current.abandon();
      current = null;
    }
    if (stopped.getAsBoolean()) {
      done.tryComplete();
      return;
    }
    if (StorageFault.of(err).isPresent()) {
      resumeLater(err);
      return;
    }
    LOG.error("Campaign {} failed in the executor", id, err);
    failCampaign("Campaign executor error: " + err.getMessage(), position);
  }

  /**
   * The database refused a write or read for a storage reason (locked by another process,
   * unreachable, the disk full): the campaign is not at fault, so it is not failed. It starts over
   * from what the database holds, as after a restart, once the fault had time to pass.
   */
  private void resumeLater(Throwable err) {
    if (resuming) {
      return;
    }
    resuming = true;
    LOG.warn("Campaign {}: the database failed ({}); resuming at its first unfinished run in {} ms",
        id, err.getMessage(), STORAGE_FAULT_RESUME_MS);
    services.vertx().setTimer(STORAGE_FAULT_RESUME_MS, t -> {
      resuming = false;
      succeeded = 0;
      failed = 0;
      if (stopped.getAsBoolean() || done.future().isComplete()) {
        done.tryComplete();
      } else {
        prepare();
      }
    });
  }

  /** Moves the campaign and stores its status event in one transaction; false when it was no longer {@code from}. */
  private Future<Boolean> move(CampaignStatus from, CampaignStatus to, String error) {
    JsonObject data = new JsonObject().put("campaign_id", id).put("status", to.wireName());
    if (error == null) {
      data.putNull("error");
    } else {
      data.put("error", error);
    }
    return services.events().write(conn -> services.campaigns().move(conn, id, from, to)
        .map(moved -> moved ? Written.of(true, new Event(id, EventType.STATUS, data)) : Written.of(false)));
  }

  private static boolean isRunning(StoredCampaign campaign) {
    return CampaignStatus.RUNNING.wireName().equals(campaign.status());
  }

  private static boolean isTerminal(StoredQuickTest test) {
    return QuickTestStatus.parse(test.status()).map(QuickTestStatus::isTerminal).orElse(false);
  }
}
