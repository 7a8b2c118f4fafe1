package dev.svc.server.http;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** What a per-source stream checks before it opens: that the source exists, and whether it has ended already. */
final class SseSources {

  private final ApiContext api;

  SseSources(ApiContext api) {
    this.api = api;
  }

  /** Succeeds when the id is a test, a campaign, an agent (deleted ones too) or has stored events; else 404. */
  Future<Void> require(String id) {
    return found(id, api.tests()::byId)
        .compose(hit -> hit ? Future.succeededFuture(true) : found(id, api.campaigns()::byId))
        .compose(hit -> hit ? Future.succeededFuture(true) : found(id, api.agents()::byIdIncludingDeleted))
        .compose(hit -> hit ? Future.succeededFuture(true)
            : api.eventStore().afterForSource(id, 0, 1).map(events -> !events.isEmpty()))
        .map(hit -> {
          if (!hit) {
            throw ApiError.notFound("Unknown event source '" + id + "'");
          }
          return null;
        });
  }

  /**
   * Whether a client resuming after {@code lastEventId} already has the source's last event and it is a
   * terminal status: the stream would have nothing to send, so it answers 204 and EventSource stops reconnecting.
   */
  Future<Boolean> endedAt(String id, long lastEventId) {
    if (lastEventId == 0) {
      return Future.succeededFuture(false);
    }
    return api.eventStore().afterForSource(id, lastEventId - 1, 2)
        .map(events -> isOnlyTerminal(events, lastEventId));
  }

  /** The events from {@code lastEventId} on are exactly that one event, and it is a terminal status. */
  private static boolean isOnlyTerminal(List<JsonObject> events, long lastEventId) {
    return events.size() == 1 && events.get(0).getLong("id") == lastEventId
        && SseScope.isTerminalStatus(events.get(0));
  }

  private static Future<Boolean> found(String id, Function<String, Future<Optional<JsonObject>>> lookup) {
    return lookup.apply(id).map(Optional::isPresent);
  }
}
