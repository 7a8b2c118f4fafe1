package dev.svc.server.http;

import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.QuickTestStore;
import io.vertx.core.Future;
import java.util.Optional;
import java.util.function.Function;

/** What a per-source stream checks before it opens: that the source exists, and whether it has finished. */
final class SseSources {

  private final AgentStore agents;
  private final QuickTestStore tests;
  private final CampaignStore campaigns;
  private final EventStore eventStore;

  SseSources(AgentStore agents, QuickTestStore tests, CampaignStore campaigns, EventStore eventStore) {
    this.agents = agents;
    this.tests = tests;
    this.campaigns = campaigns;
    this.eventStore = eventStore;
  }

  /**
   * Whether the source has finished (a test or campaign in a terminal status: nothing more is logged on
   * it); false for a running one and for an agent. Fails with 404 for anything else: an unknown id, a
   * deleted campaign (its events went with it), a deleted agent (as its API resource).
   */
  Future<Boolean> requireFinished(String id) {
    return tests.byId(id).compose(test -> {
      if (test.isPresent()) {
        return Future.succeededFuture(SseScope.isTerminal(test.get().status()));
      }
      return campaigns.byId(id).compose(campaign -> {
        if (campaign.isPresent()) {
          return Future.succeededFuture(SseScope.isTerminal(campaign.get().status()));
        }
        return found(id, agents::byId).map(agent -> {
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
    return eventStore.afterForSource(id, lastEventId, 1).map(events -> !events.isEmpty());
  }

  private static Future<Boolean> found(String id, Function<String, Future<? extends Optional<?>>> lookup) {
    return lookup.apply(id).map(Optional::isPresent);
  }
}
