package dev.svc.server.campaigns;

import dev.svc.server.db.StorageFault;
import dev.svc.server.store.Event;
import dev.svc.server.events.EventLog.Written;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one campaign: each line is stored as a {@code log} event on the campaign's source,
 * strictly in the order the lines were given.
 */
final class CampaignLog {

  private static final Logger LOG = LoggerFactory.getLogger(CampaignLog.class);

  /** A line the database refuses for a storage reason is tried again this often... */
  static final long STORAGE_FAULT_RETRY_MS = 1000;
  /** ...for this long, then dropped with a warning (the database is not coming back soon). */
  static final long STORAGE_FAULT_PATIENCE_MS = 10 * 60_000;

  private final CampaignServices services;
  private final String campaignId;
  private Future<Void> tail = Future.succeededFuture();

  CampaignLog(CampaignServices services, String campaignId) {
    this.services = services;
    this.campaignId = campaignId;
  }

  /** Queues a line after those given before; completes once it is stored and published. */
  Future<Void> line(String line) {
    long giveUpAt = System.nanoTime() + STORAGE_FAULT_PATIENCE_MS * 1_000_000;
    Future<Void> next = tail.transform(ignored -> write(line, giveUpAt)
        .onFailure(err -> LOG.warn("Campaign {}: log line not written: {}", campaignId, err.getMessage())));
    tail = next;
    return next;
  }

  /** Writes a line; a storage fault (the database locked, unreachable, the disk full) is waited out, in order. */
  private Future<Void> write(String line, long giveUpAt) {
    return services.events().write(conn -> Future.succeededFuture(Written.of((Void) null, Event.campaignLog(campaignId, line))))
        .recover(err -> {
          if (StorageFault.of(err).isEmpty() || System.nanoTime() > giveUpAt) {
            return Future.failedFuture(err);
          }
          Promise<Void> again = Promise.promise();
          services.vertx().setTimer(STORAGE_FAULT_RETRY_MS, t -> write(line, giveUpAt).onComplete(again));
          return again.future();
        });
  }

  /** Completes when every line given so far was written (or failed to be). */
  Future<Void> flushed() {
    return tail.otherwiseEmpty();
  }
}
