package dev.svc.server.http;

import dev.svc.core.tls.CertificateAuthority;
import dev.svc.engines.EngineCatalog;
import dev.svc.server.Timings;
import dev.svc.server.results.ResultRecorder;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.server.settings.GlobalSettings;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.store.CommandStore;
import dev.svc.server.store.EventStore;
import dev.svc.server.events.EventLog;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import dev.svc.server.store.SettingsStore;
import io.vertx.core.Vertx;

/**
 * What the API handlers share: the stores, the guard, the event log and the server's facts
 * ({@code caFingerprint}: what {@code svc-agent init --ca-fingerprint} pins; null on plain HTTP or
 * behind a custom certificate that does not carry the server's CA).
 */
public record ApiContext(
    Vertx vertx,
    AgentStore agents,
    QuickTestStore tests,
    ResultStore results,
    CampaignStore campaigns,
    CommandStore commands,
    SettingsStore settingsStore,
    EventLog events,
    EventStore eventStore,
    GlobalSettings settings,
    EngineCatalog engines,
    Guard guard,
    CertificateAuthority ca,
    boolean mutualTls,
    String caFingerprint,
    int schemaVersion,
    Timings timings,
    TestTransitions transitions,
    ResultRecorder resultRecorder) {
}
