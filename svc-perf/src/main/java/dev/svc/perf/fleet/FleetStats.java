package dev.svc.perf.fleet;

import dev.svc.bench.emulator.Lateness;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the fleet counted, written from every agent's event loop and read by the progress line and
 * the summary: counters, constant-memory latency histograms, errors by kind.
 */
public final class FleetStats {

  final LongAdder enrolled = new LongAdder();
  final LongAdder registered = new LongAdder();
  /** Agents that registered at least once. */
  private final AtomicLong agentsUp = new AtomicLong();
  private final long fleetSize;
  private final long intervalNanos;
  /** When the last agent of the fleet registered for the first time (nanoTime), 0 before. */
  private volatile long allUpNanos;
  final LongAdder heartbeats = new LongAdder();
  final LongAdder testsCreated = new LongAdder();
  final LongAdder testsGiven = new LongAdder();
  final LongAdder testsCompleted = new LongAdder();
  final LongAdder testsFailed = new LongAdder();
  final LongAdder testsCancelled = new LongAdder();
  /** Tests not created because no agent the feeder looked at was idle. */
  final LongAdder testsSkipped = new LongAdder();
  final Lateness heartbeatLatency = new Lateness();
  /** Heartbeats begun once the fleet was steady: every agent registered, one interval before. */
  final Lateness steadyLatency = new Lateness();
  final LongAdder steadyHeartbeats = new LongAdder();

  FleetStats(int fleetSize, int intervalS) {
    this.fleetSize = fleetSize;
    this.intervalNanos = intervalS * 1_000_000_000L;
  }

  /** An agent registered for the first time. */
  void agentUp() {
    if (agentsUp.incrementAndGet() == fleetSize) {
      allUpNanos = System.nanoTime();
    }
  }

  /** When every agent had registered (nanoTime), 0 if not yet. */
  long allUpNanos() {
    return allUpNanos;
  }

  /** When the fleet became steady: one interval after every agent registered (nanoTime), 0 if not yet. */
  long steadySince() {
    long up = allUpNanos;
    return up == 0 ? 0 : up + intervalNanos;
  }
  final Lateness registrationLatency = new Lateness();
  /** How long an agent's connection took to open (TCP, TLS with its client certificate). */
  final Lateness connectLatency = new Lateness();
  final Lateness dispatchDelay = new Lateness();
  /** Heartbeat latency since the last progress line. */
  private final AtomicReference<Lateness> heartbeatWindow = new AtomicReference<>(new Lateness());
  private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

  /** A heartbeat answered 200, begun at {@code begunNanos}. */
  void heartbeat(long begunNanos, long latencyNanos) {
    heartbeats.increment();
    heartbeatLatency.record(latencyNanos);
    heartbeatWindow.get().record(latencyNanos);
    long steady = steadySince();
    if (steady != 0 && begunNanos - steady >= 0) {
      steadyHeartbeats.increment();
      steadyLatency.record(latencyNanos);
    }
  }

  /** Counts one error of this kind, e.g. "heartbeat: HTTP 503" or "register: timeout". */
  void error(String kind) {
    errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
  }

  /** The heartbeat latencies since the previous call. */
  Lateness.Summary takeHeartbeatWindow() {
    return heartbeatWindow.getAndSet(new Lateness()).summary();
  }

  /** Registrations answered (an agent registered again counts again). */
  public long registrations() {
    return registered.sum();
  }

  /** Agents that have registered. */
  public long agentsUp() {
    return agentsUp.get();
  }

  public long heartbeats() {
    return heartbeats.sum();
  }

  /** Tests the fleet was given (run_test received). */
  public long testsGiven() {
    return testsGiven.sum();
  }

  public long errorCount() {
    return errors.values().stream().mapToLong(LongAdder::sum).sum();
  }

  /** Errors by kind, sorted by kind. */
  public Map<String, Long> errors() {
    Map<String, Long> out = new TreeMap<>();
    errors.forEach((kind, n) -> out.put(kind, n.sum()));
    return out;
  }
}
