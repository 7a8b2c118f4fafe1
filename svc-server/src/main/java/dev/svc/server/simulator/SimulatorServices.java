package dev.svc.server.simulator;

import dev.svc.engines.EngineCatalog;
import dev.svc.server.Timings;
import dev.svc.server.events.EventLog;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.server.results.ResultRecorder;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.QuickTestStore;

/**
 * What the test-agent simulator uses and nothing else: the tests it runs and their transitions, the
 * agents' facts, the engine catalog, the event log (and its stored lines, to resume a run), the
 * result path every agent's result takes, and its delays.
 */
public record SimulatorServices(
    AgentStore agents,
    QuickTestStore tests,
    TestTransitions transitions,
    EngineCatalog engines,
    EventLog events,
    EventStore eventStore,
    ResultRecorder resultRecorder,
    Timings timings) {
}
