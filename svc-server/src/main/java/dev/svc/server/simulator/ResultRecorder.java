package dev.svc.server.simulator;

import dev.svc.core.Ids;
import dev.svc.core.Timestamps;
import dev.svc.core.events.EventType;
import dev.svc.server.http.ApiContext;
import dev.svc.server.results.ResultFields;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Stores a simulated result the way an agent's report is stored: one result per command id (a run
 * resumed after a restart reuses the one already stored), linked to its test, with a
 * {@code result} event.
 */
final class ResultRecorder {

  private ResultRecorder() {
  }

  /** Completes with the result's id. */
  static Future<String> record(ApiContext api, JsonObject test, JsonObject document) {
    String testId = test.getString("id");
    String commandId = test.getString("command_id");
    return api.results().byCommandId(commandId)
        .compose(existing -> existing.isPresent() ? Future.succeededFuture(existing.get().getString("id"))
            : insert(api, test, document))
        .compose(resultId -> api.tests().linkResult(testId, resultId)
            .compose(v -> api.events().append(testId, EventType.RESULT,
                new JsonObject().put("test_id", testId).put("result_id", resultId)))
            .map(v -> resultId));
  }

  private static Future<String> insert(ApiContext api, JsonObject test, JsonObject document) {
    ResultFields fields = ResultFields.extract(document);
    String id = Ids.newId();
    ResultStore.NewResult row = new ResultStore.NewResult(id, fields.model(), fields.engine(), fields.suiteName(),
        fields.timestamp().orElse(Timestamps.now()), fields.passed(), document, null, test.getString("id"),
        test.getString("agent_id"), test.getString("command_id"));
    return api.results().insert(row).map(v -> id);
  }
}
