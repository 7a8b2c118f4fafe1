package dev.svc.server.campaigns;

import dev.svc.core.events.LoggedEvent;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventAddresses;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import dev.svc.server.store.StoredQuickTest;
import io.vertx.core.json.JsonObject;
import java.util.function.Consumer;

/**
 * Observes one quick test through the events published on its source: hands each {@code log} line
 * to a callback and ends with the test's terminal {@code status} event (or a terminal state read
 * from the store, given to {@link #settle}).
 */
final class RowWatch {

  private final MessageConsumer<JsonObject> consumer;
  private final Promise<RowOutcome> outcome = Promise.promise();
  private final Consumer<String> onLog;

  private RowWatch(Vertx vertx, String testId, Consumer<String> onLog) {
    this.onLog = onLog;
    this.consumer = vertx.eventBus().consumer(EventAddresses.forSource(testId), m -> event(LoggedEvent.parse(m.body())));
  }

  /** Registers the consumer; completes once it is registered, so no later event is missed. */
  static Future<RowWatch> open(Vertx vertx, String testId, Consumer<String> onLog) {
    RowWatch watch = new RowWatch(vertx, testId, onLog);
    return watch.consumer.completion().map(v -> watch);
  }

  private void event(LoggedEvent event) {
    if (outcome.future().isComplete()) {
      return;
    }
    if (event.line() != null) {
      onLog.accept(event.line());
    } else if (event.status() != null) {
      QuickTestStatus.parse(event.status()).filter(QuickTestStatus::isTerminal)
          .ifPresent(status -> settle(new RowOutcome(status, event.error())));
    }
  }

  /** Ends the watch with this outcome unless it already ended; stops listening. */
  void settle(RowOutcome result) {
    if (outcome.tryComplete(result)) {
      consumer.unregister();
    }
  }

  /** Ends the watch from a stored test row when that row is terminal; true if it was. */
  boolean settleFrom(StoredQuickTest test) {
    QuickTestStatus status = QuickTestStatus.parse(test.status()).orElse(null);
    if (status == null || !status.isTerminal()) {
      return false;
    }
    settle(new RowOutcome(status, test.error()));
    return true;
  }

  Future<RowOutcome> outcome() {
    return outcome.future();
  }

  /** Stops listening without an outcome (the executor is stopping). */
  void abandon() {
    if (!outcome.future().isComplete()) {
      consumer.unregister();
    }
  }
}
