package dev.svc.perf.fleet;

import dev.svc.bench.emulator.Lateness;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The summary of one {@code svc fleet simulate} run.
 *
 * @param agentsUp agents that registered (registrations count an agent registering again again)
 * @param allRegisteredSeconds when every agent had registered, from the first start; -1 if never
 * @param connect how long an agent's connection took to open (TCP and TLS)
 * @param heartbeatsPerSecond heartbeats answered per second while the fleet was steady; over the
 *     whole run when it never was
 * @param heartbeat heartbeat latency (request written to answer read) over the run, not the drain
 * @param steadySeconds how long the fleet was steady: from one interval after every agent had
 *     registered to the end of the run; 0 when it never was
 * @param steady heartbeat latency of the beats begun while the fleet was steady
 * @param dispatch the delay from asking for a quick test to its {@code run_test} arriving
 * @param given ids of the tests the fleet was given ({@code run_test} received)
 * @param completed ids of the tests whose result the server accepted
 * @param heapUsedBytes the simulator's heap after a full collection, with every agent still running
 * @param machine the machine's state over the run (load average, idle and stolen CPU share)
 */
public record FleetReport(
    FleetOptions options,
    int enrolled,
    double enrolSeconds,
    long agentsUp,
    long registrations,
    double allRegisteredSeconds,
    Lateness.Summary registration,
    Lateness.Summary connect,
    double runSeconds,
    long heartbeats,
    double heartbeatsPerSecond,
    Lateness.Summary heartbeat,
    double steadySeconds,
    Lateness.Summary steady,
    Map<String, Long> errors,
    Lateness.Summary dispatch,
    long testsCreated,
    long testsGiven,
    long testsCompleted,
    long testsFailed,
    long testsCancelled,
    long testsSkipped,
    Set<String> given,
    Set<String> completed,
    long connectionsOpened,
    long heapUsedBytes,
    String machine) {

  public long errorCount() {
    return errors.values().stream().mapToLong(Long::longValue).sum();
  }

  /** The summary as lines for a person. */
  public List<String> lines() {
    List<String> out = new ArrayList<>();
    out.add(String.format(Locale.ROOT, "svc fleet simulate: %d agents on %s, heartbeat every %d s, %.0f s (%s)",
        options.agents(), options.server(), options.intervalS(), runSeconds,
        options.sharedConnections() > 0 ? options.sharedConnections() + " shared connections"
            : "one connection per agent" + (options.https() ? ", mutual TLS" : "")));
    out.add(String.format(Locale.ROOT, "enrolment: %d agents in %.1f s", enrolled, enrolSeconds));
    out.add(String.format(Locale.ROOT, "registrations: %d, %d agents (%s; at most %d at once), latency %s",
        registrations, agentsUp, allRegisteredSeconds < 0 ? "not every agent registered"
            : String.format(Locale.ROOT, "every agent %.1f s after the first start", allRegisteredSeconds),
        FleetRun.CONCURRENT_REGISTRATIONS, registration.brief()));
    out.add(String.format(Locale.ROOT, "heartbeats: %d, latency %s", heartbeats, heartbeat.brief()));
    out.add(steadySeconds <= 0 ? "steady state: never (not every agent registered one interval before the end)"
        : String.format(Locale.ROOT, "steady state (last %.0f s): %.1f heartbeats/s (%.1f/s expected), latency %s",
            steadySeconds, heartbeatsPerSecond, (double) options.agents() / options.intervalS(), steady.brief()));
    out.add("errors: " + errorCount());
    errors.forEach((kind, n) -> out.add("  " + kind + ": " + n));
    out.add(String.format(Locale.ROOT, "tests: %d created, %d given, %d completed, %d failed, %d cancelled%s",
        testsCreated, testsGiven, testsCompleted, testsFailed, testsCancelled,
        testsSkipped == 0 ? "" : ", " + testsSkipped + " not created (no idle agent)"));
    out.add(dispatch.count() == 0 ? "dispatch delay: no test dispatched"
        : String.format(Locale.ROOT, "dispatch delay (queued to run_test received, %d tests): p50 %.1f ms, p99 %.1f ms,"
            + " max %.1f ms (target: at most %d ms)", dispatch.count(), dispatch.p50Ms(), dispatch.p99Ms(),
            dispatch.maxMs(), options.intervalS() * 1000 + 100));
    out.add(options.sharedConnections() > 0 ? "connections: a pool of " + options.sharedConnections() + " shared"
        : String.format(Locale.ROOT, "connections: %d opened (at most %d at once), time to open %s", connectionsOpened,
            FleetSimulator.CONCURRENT_CONNECTS, connect.brief()));
    out.add(String.format(Locale.ROOT, "simulator: heap %d MiB after a full GC (%.1f KiB per agent)",
        heapUsedBytes >> 20, heapUsedBytes / 1024.0 / options.agents()));
    out.add(machine);
    return out;
  }
}
