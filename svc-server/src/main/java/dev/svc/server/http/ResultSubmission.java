package dev.svc.server.http;

import dev.svc.core.Ids;
import dev.svc.core.Timestamps;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.core.events.EventType;
import dev.svc.server.results.ResultFields;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.Optional;

/**
 * An agent's result report: stored once per command id (a retry gets the same result id), linked to
 * its quick test, and moving that test to its final status when the report carries one.
 */
final class ResultSubmission {

  private final ApiContext api;

  ResultSubmission(ApiContext api) {
    this.api = api;
  }

  Future<JsonObject> submit(JsonObject agent, String commandId, String testIdField, String status, String error,
      JsonObject data) {
    Optional<QuickTestStatus> finalStatus = status == null ? Optional.empty()
        : Optional.of(QuickTestStatus.parse(status).filter(QuickTestStatus::isTerminal)
            .orElseThrow(() -> ApiError.badRequest("Field 'status' must be completed or failed")));
    String agentId = agent.getString("id");
    return findTest(commandId, testIdField).compose(test -> {
      if (test.isPresent() && !agentId.equals(test.get().getString("agent_id"))) {
        throw ApiError.forbidden("Test " + test.get().getString("id") + " belongs to another agent");
      }
      String testId = test.map(t -> t.getString("id")).orElse(null);
      return api.results().byCommandId(commandId).compose(existing -> {
        if (existing.isPresent()) {
          return Future.succeededFuture(existing.get().getString("id"));
        }
        if (data == null) {
          return Future.succeededFuture((String) null);
        }
        return store(data, testId, agentId, commandId);
      }).compose(resultId -> finish(test.orElse(null), resultId, finalStatus, error)
          .map(v -> new JsonObject().put("accepted", true).put("result_id", resultId)));
    });
  }

  private Future<Optional<JsonObject>> findTest(String commandId, String testId) {
    if (testId != null && !testId.isBlank()) {
      return api.tests().byId(testId).map(t -> {
        if (t.isEmpty()) {
          throw ApiError.notFound("Quick test '" + testId + "' not found");
        }
        return t;
      });
    }
    return api.tests().byCommandId(commandId);
  }

  private Future<String> store(JsonObject data, String testId, String agentId, String commandId) {
    ResultFields fields = ResultFields.extract(data);
    String id = Ids.newId();
    ResultStore.NewResult row = new ResultStore.NewResult(id, fields.model(), fields.engine(), fields.suiteName(),
        fields.timestamp().orElse(Timestamps.now()), fields.passed(), data, null, testId, agentId, commandId);
    return api.results().insert(row).recover(err -> api.results().byCommandId(commandId)
        .map(again -> again.map(r -> (Void) null).orElseThrow(() -> new IllegalStateException(err))))
        .compose(v -> api.results().byCommandId(commandId))
        .map(stored -> stored.orElseThrow().getString("id"));
  }

  private Future<Void> finish(JsonObject test, String resultId, Optional<QuickTestStatus> finalStatus, String error) {
    if (test == null) {
      return Future.succeededFuture();
    }
    String testId = test.getString("id");
    Future<Void> linked = resultId == null || resultId.equals(test.getString("result_id"))
        ? Future.succeededFuture()
        : api.tests().linkResult(testId, resultId).compose(v -> api.events().append(testId, EventType.RESULT,
            new JsonObject().put("test_id", testId).put("result_id", resultId)).mapEmpty());
    QuickTestStatus current = QuickTestStatus.parse(test.getString("status")).orElseThrow();
    if (finalStatus.isEmpty() || !current.canMoveTo(finalStatus.get())) {
      return linked;
    }
    return linked.compose(v -> QuickTestTransitions.move(api, test, current, finalStatus.get(), error)).mapEmpty();
  }
}
