package dev.svc.server.campaigns;

import dev.svc.server.Timings;
import dev.svc.server.events.EventLog;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.store.QuickTestStore;
import io.vertx.core.Vertx;

/**
 * What campaign runs use and nothing else: campaigns and their agents, the rows' tests (created,
 * failed and read back through the test transitions), the event log and the row timeout.
 */
public record CampaignServices(
    Vertx vertx,
    CampaignStore campaigns,
    AgentStore agents,
    QuickTestStore tests,
    TestTransitions transitions,
    EventLog events,
    Timings timings) {
}
