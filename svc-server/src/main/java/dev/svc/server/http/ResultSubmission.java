package dev.svc.server.http;

import dev.svc.core.domain.QuickTestStatus;
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
      Future<String> stored = data == null ? api.results().byCommandId(commandId).map(r -> r.map(x -> x.getString("id"))
          .orElse(null)) : api.resultRecorder().record(data, test.orElse(null), agentId, commandId);
      return stored.compose(resultId -> finish(test.orElse(null), finalStatus, error)
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

  private Future<Void> finish(JsonObject test, Optional<QuickTestStatus> finalStatus, String error) {
    if (test == null || finalStatus.isEmpty()) {
      return Future.succeededFuture();
    }
    // Re-read: linking the result did not move it, but another report may have meanwhile.
    return api.tests().byId(test.getString("id")).compose(fresh -> {
      QuickTestStatus current = fresh.flatMap(t -> QuickTestStatus.parse(t.getString("status"))).orElse(null);
      if (current == null || !current.canMoveTo(finalStatus.get())) {
        return Future.succeededFuture();
      }
      String reason = finalStatus.get() == QuickTestStatus.FAILED ? error : null;
      return api.transitions().move(fresh.get(), current, finalStatus.get(), reason).mapEmpty();
    });
  }
}
