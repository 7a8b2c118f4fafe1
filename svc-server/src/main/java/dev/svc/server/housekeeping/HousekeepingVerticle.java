package dev.svc.server.housekeeping;

import dev.svc.core.events.EventAddresses;
import dev.svc.core.Timestamps;
import dev.svc.server.results.ResultSummary;
import dev.svc.server.settings.GlobalSettings;
import dev.svc.server.store.ResultStore;
import dev.svc.server.store.RetentionStore;
import dev.svc.server.store.StoredJson;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the database from growing without bound and lists cheap. A run (shortly after start, then
 * every hour, or on request at {@link EventAddresses#HOUSEKEEPING_RUN}) first stores the summary of every result stored before
 * results had one (one document at a time, parsed on a worker), then deletes, per the retention
 * settings ({@link GlobalSettings.Retention}), events older than their retention, log lines of quick
 * tests and campaigns that finished longer ago than theirs, and commands acknowledged longer ago than
 * theirs. Deletes go in batches of {@link #BATCH} rows, one statement each, so that the database's
 * writer is never held for long. Each run's counts are published on {@link EventAddresses#HOUSEKEEPING_DONE}.
 */
public final class HousekeepingVerticle extends VerticleBase {

  public static final long FIRST_RUN_MS = 10_000;
  public static final long PERIOD_MS = 60L * 60 * 1000;
  static final int BATCH = 500;

  private static final Logger LOG = LoggerFactory.getLogger(HousekeepingVerticle.class);

  private final RetentionStore store;
  private final ResultStore results;
  private final GlobalSettings settings;
  private final long firstRunMs;
  private final long periodMs;
  private long timer = -1;
  /** The last run asked for; a new one starts after it. */
  private Future<JsonObject> last = Future.succeededFuture();
  private int queued;
  private boolean stopped;

  public HousekeepingVerticle(RetentionStore store, ResultStore results, GlobalSettings settings) {
    this(store, results, settings, FIRST_RUN_MS, PERIOD_MS);
  }

  public HousekeepingVerticle(RetentionStore store, ResultStore results, GlobalSettings settings, long firstRunMs,
      long periodMs) {
    this.store = store;
    this.results = results;
    this.settings = settings;
    this.firstRunMs = firstRunMs;
    this.periodMs = periodMs;
  }

  @Override
  public Future<?> start() {
    timer = vertx.setPeriodic(firstRunMs, periodMs, id -> {
      if (queued == 0) { // a run that outlasts the period is not queued again
        run();
      }
    });
    return vertx.eventBus().<JsonObject>consumer(EventAddresses.HOUSEKEEPING_RUN, message -> run().onComplete(ar -> {
      if (ar.succeeded()) {
        message.reply(ar.result());
      } else {
        message.fail(500, String.valueOf(ar.cause().getMessage()));
      }
    })).completion();
  }

  @Override
  public Future<?> stop() {
    stopped = true;
    vertx.cancelTimer(timer);
    return Future.succeededFuture();
  }

  /** One run, after the one in progress if there is one (so it sees everything stored before it was asked for). */
  Future<JsonObject> run() {
    queued++;
    last = last.transform(ar -> runOnce()).onComplete(ar -> queued--);
    return last;
  }

  private Future<JsonObject> runOnce() {
    JsonObject counts = new JsonObject();
    return summarizeAll(0).map(n -> counts.put("summaries", n))
        .compose(v -> settings.retention())
        .compose(retention -> prune(retention, counts))
        .onSuccess(done -> {
          if (done.stream().anyMatch(e -> e.getValue() instanceof Number n && n.longValue() > 0)) {
            LOG.info("Housekeeping: {}", done.encode());
          }
          vertx.eventBus().publish(EventAddresses.HOUSEKEEPING_DONE, done);
        })
        .onFailure(err -> {
          if (!stopped) {
            LOG.warn("Housekeeping failed: {}", err.toString());
          }
        });
  }

  private Future<JsonObject> prune(GlobalSettings.Retention retention, JsonObject counts) {
    return events(retention.eventsDays()).map(n -> counts.put("events", n))
        .compose(v -> batches(retention.logsDays(), cutoff -> () -> store.deleteTestLogs(cutoff, BATCH)))
        .map(n -> counts.put("quick_test_logs", n))
        .compose(v -> batches(retention.logsDays(), cutoff -> () -> store.deleteCampaignLogs(cutoff, BATCH)))
        .map(n -> counts.put("campaign_logs", n))
        .compose(v -> batches(retention.commandsDays(), cutoff -> () -> store.deleteCommands(cutoff, BATCH)))
        .map(n -> counts.put("commands", n));
  }

  private Future<Integer> events(int days) {
    if (days <= 0) {
      return Future.succeededFuture(0);
    }
    return store.eventsKeptFrom(cutoff(days)).compose(keptFrom -> eventsBefore(keptFrom, 0, 0));
  }

  private Future<Integer> eventsBefore(long keptFrom, long after, int total) {
    if (stopped) {
      return Future.succeededFuture(total);
    }
    return store.deleteEventsBefore(after, keptFrom, BATCH).compose(batch -> batch.last() == after
        ? Future.succeededFuture(total + batch.deleted())
        : eventsBefore(keptFrom, batch.last(), total + batch.deleted()));
  }

  private Future<Integer> batches(int days, java.util.function.Function<String, Supplier<Future<Integer>>> batch) {
    return days <= 0 ? Future.succeededFuture(0) : drain(batch.apply(cutoff(days)), 0);
  }

  /** Runs a batch until one deletes less than a full batch (or the verticle stops); the total deleted. */
  private Future<Integer> drain(Supplier<Future<Integer>> batch, int total) {
    if (stopped) {
      return Future.succeededFuture(total);
    }
    return batch.get().compose(n -> n < BATCH ? Future.succeededFuture(total + n) : drain(batch, total + n));
  }

  private static String cutoff(int days) {
    return Timestamps.format(Instant.now().minus(Duration.ofDays(days)));
  }

  // --- summaries of results stored before results had them ---

  private Future<Integer> summarizeAll(int total) {
    if (stopped) {
      return Future.succeededFuture(total);
    }
    return results.withoutSummary(BATCH).compose(ids -> summarize(ids, 0)
        .compose(v -> ids.size() < BATCH ? Future.succeededFuture(total + ids.size()) : summarizeAll(total + ids.size())));
  }

  private Future<Void> summarize(List<String> ids, int next) {
    if (next == ids.size() || stopped) {
      return Future.succeededFuture();
    }
    String id = ids.get(next);
    return results.dataText(id)
        .compose(text -> vertx.executeBlocking(() -> {
          JsonObject data = text.map(StoredJson::object).orElse(null);
          return data == null ? ResultSummary.unreadable() : ResultSummary.of(data);
        }, false))
        .compose(summary -> results.saveSummary(id, summary))
        .compose(v -> summarize(ids, next + 1));
  }
}
