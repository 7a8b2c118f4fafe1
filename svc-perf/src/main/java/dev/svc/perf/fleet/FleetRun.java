package dev.svc.perf.fleet;

import dev.svc.core.SvcVersion;
import dev.svc.core.protocol.Registration;
import dev.svc.engines.EngineCatalog;
import dev.svc.server.simulator.SimulatedHost;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** What every virtual agent of one run shares: the options, the counters, the test ledgers. */
final class FleetRun {

  /** The hardware every virtual agent registers with (protocol.md 2.1), as a real agent's probe reports it. */
  static final String GPU = "NVIDIA H100 80GB HBM3";
  static final int GPU_COUNT = 8;
  static final String CPU = "AMD EPYC 9654 96-Core Processor";
  static final int RAM_GB = 1024;

  final Vertx vertx;
  final FleetOptions options;
  final FleetStats stats;
  final EngineCatalog engines = EngineCatalog.defaults();
  /** Tests the simulator created, given to its agents (run_test received), and ended by its agents. */
  final Set<String> created = ConcurrentHashMap.newKeySet();
  final Set<String> given = ConcurrentHashMap.newKeySet();
  final Set<String> completed = ConcurrentHashMap.newKeySet();
  final Set<String> ended = ConcurrentHashMap.newKeySet();
  /** Registrations in flight at once, fleet-wide ({@link Gate}). */
  final Gate registrations = new Gate(CONCURRENT_REGISTRATIONS);
  static final int CONCURRENT_REGISTRATIONS = 32;

  FleetRun(Vertx vertx, FleetOptions options, FleetStats stats) {
    this.vertx = vertx;
    this.options = options;
    this.stats = stats;
  }

  long intervalMs() {
    return options.intervalS() * 1000L;
  }

  /** The registration of one agent. */
  Registration registration(String name) {
    return new Registration(name, name, Registration.DEFAULT_PORT, GPU, GPU_COUNT, CPU, "amd64", RAM_GB, "native_linux",
        "h100_x8_epyc9654_fleet", SvcVersion.version(), List.of("vllm", "llama_cpp"), null);
  }

  /** The agent as the test agents' simulator reads it to plan a run's figures. */
  SimulatedHost host(String id, String name) {
    return SimulatedHost.of(id, name, GPU, GPU_COUNT, CPU, "amd64", RAM_GB, "native_linux", null);
  }
}
