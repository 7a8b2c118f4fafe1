package dev.svc.server.http;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.Optional;
import java.util.function.Function;

/** What a per-source stream checks before it opens: that the source exists, and whether it has finished. */
final class SseSources {

  private final ApiContext api;

  SseSources(ApiContext api) {
    this.api = api;
  }

  /**
   * Whether the source has finished (a test or campaign in a terminal status: nothing more is logged on
   * it); false for a running one and for an agent. Fails with 404 for anything else: an unknown id, a
   * deleted campaign (its events went with it), a deleted agent (as its API resource).
   */
  Future<Boolean> requireFinished(String id) {
    return api.tests().byId(id).compose(test -> {
      if (test.isPresent()) {
        return Future.succeededFuture(SseScope.isTerminal(test.get().getString("status")));
      }
      return api.campaigns().byId(id).compose(campaign -> {
        if (campaign.isPresent()) {
          return Future.succeededFuture(SseScope.isTerminal(campaign.get().getString("status")));
        }
        return found(id, api.agents()::byId).map(agent -> {
          if (!agent) {
            throw ApiError.notFound("Unknown event source '" + id + "'");
          }
          return false;
        });
      });
    });
  }

  /** Whether the source has stored events after this id. */
  Future<Boolean> hasEventsAfter(String id, long lastEventId) {
    return api.eventStore().afterForSource(id, lastEventId, 1).map(events -> !events.isEmpty());
  }

  private static Future<Boolean> found(String id, Function<String, Future<Optional<JsonObject>>> lookup) {
    return lookup.apply(id).map(Optional::isPresent);
  }
}
