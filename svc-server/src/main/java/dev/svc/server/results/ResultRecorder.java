package dev.svc.server.results;

import dev.svc.core.Ids;
import dev.svc.core.Timestamps;
import dev.svc.core.events.EventType;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * The result-store path for a run's metrics.json, whether an agent reported it or the simulator
 * made it: stored once per command id (a retry or a resumed run gets the same result), linked to
 * its quick test, announced with a {@code result} event.
 */
public final class ResultRecorder {

  private final ResultStore results;
  private final QuickTestStore tests;
  private final EventLog events;

  public ResultRecorder(ResultStore results, QuickTestStore tests, EventLog events) {
    this.results = results;
    this.tests = tests;
    this.events = events;
  }

  /**
   * Completes with the result's id: the one already stored for this command, else a new one.
   *
   * @param test the quick test it belongs to, or null when the report names none
   */
  public Future<String> record(JsonObject data, JsonObject test, String agentId, String commandId) {
    return results.byCommandId(commandId)
        .compose(existing -> existing.isPresent() ? Future.succeededFuture(existing.get().getString("id"))
            : insert(data, test == null ? null : test.getString("id"), agentId, commandId))
        .compose(resultId -> test == null || resultId.equals(test.getString("result_id"))
            ? Future.succeededFuture(resultId) : link(test.getString("id"), resultId));
  }

  private Future<String> insert(JsonObject data, String testId, String agentId, String commandId) {
    ResultFields fields = ResultFields.extract(data);
    String id = Ids.newId();
    ResultStore.NewResult row = new ResultStore.NewResult(id, fields.model(), fields.engine(), fields.suiteName(),
        fields.timestamp().orElse(Timestamps.now()), fields.passed(), data, null, testId, agentId, commandId);
    // Two reports racing on one command id: the unique index keeps one; both answer with it.
    return results.insert(row).map(id)
        .recover(err -> results.byCommandId(commandId).map(again -> again.map(r -> r.getString("id"))
            .orElseThrow(() -> new IllegalStateException("Result not stored: " + err.getMessage(), err))));
  }

  private Future<String> link(String testId, String resultId) {
    return tests.linkResult(testId, resultId)
        .compose(v -> events.append(testId, EventType.RESULT, new JsonObject().put("test_id", testId)
            .put("result_id", resultId)))
        .map(v -> resultId);
  }
}
