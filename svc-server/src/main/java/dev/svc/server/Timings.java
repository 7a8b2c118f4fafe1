package dev.svc.server;

/**
 * The server's clocks, in milliseconds: leases, stale agents, sweeps, campaign row timeout,
 * simulated log delays and SSE keepalives. Defaults are the protocol's; tests shorten them.
 *
 * @param minLeaseMs a dispatched test's lease is at least this (protocol: 90 s)
 * @param leaseHeartbeats ... and at least this many heartbeat intervals (protocol: 3)
 * @param minStaleMs an agent is offline after at least this without a heartbeat (protocol: 90 s)
 * @param staleHeartbeats ... and at least this many of its heartbeat intervals (protocol: 3)
 * @param sweepMs how often the lease and stale-agent timers run
 * @param campaignRowTimeoutMs per-test timeout of a campaign row (mission: 30 minutes)
 * @param simulatorMinDelayMs shortest pause between simulated log lines (mission: 0.5 s)
 * @param simulatorMaxDelayMs longest pause between simulated log lines (mission: 1.5 s)
 * @param keepaliveMs SSE keepalive comment interval (protocol: 15 s)
 * @param metricsRefreshMs how often the metrics' gauges take their values from the fleet and the database (5 s)
 */
public record Timings(
    long minLeaseMs,
    int leaseHeartbeats,
    long minStaleMs,
    int staleHeartbeats,
    long sweepMs,
    long campaignRowTimeoutMs,
    long simulatorMinDelayMs,
    long simulatorMaxDelayMs,
    long keepaliveMs,
    long metricsRefreshMs) {

  public static Timings defaults() {
    return new Timings(90_000, 3, 90_000, 3, 5_000, 30L * 60 * 1000, 500, 1_500, 15_000, 5_000);
  }

  /** The lease of a test dispatched to an agent with this heartbeat interval. */
  public long leaseMs(int heartbeatIntervalS) {
    return Math.max(minLeaseMs, leaseHeartbeats * heartbeatIntervalS * 1000L);
  }

  /** How long an agent with this heartbeat interval may stay silent before it is offline. */
  public long staleMs(int heartbeatIntervalS) {
    return Math.max(minStaleMs, staleHeartbeats * heartbeatIntervalS * 1000L);
  }

  public Timings withLeases(long minLeaseMs, int leaseHeartbeats) {
    return new Timings(minLeaseMs, leaseHeartbeats, minStaleMs, staleHeartbeats, sweepMs, campaignRowTimeoutMs,
        simulatorMinDelayMs, simulatorMaxDelayMs, keepaliveMs, metricsRefreshMs);
  }

  public Timings withStale(long minStaleMs, int staleHeartbeats) {
    return new Timings(minLeaseMs, leaseHeartbeats, minStaleMs, staleHeartbeats, sweepMs, campaignRowTimeoutMs,
        simulatorMinDelayMs, simulatorMaxDelayMs, keepaliveMs, metricsRefreshMs);
  }

  public Timings withSweep(long sweepMs) {
    return new Timings(minLeaseMs, leaseHeartbeats, minStaleMs, staleHeartbeats, sweepMs, campaignRowTimeoutMs,
        simulatorMinDelayMs, simulatorMaxDelayMs, keepaliveMs, metricsRefreshMs);
  }

  public Timings withCampaignRowTimeout(long campaignRowTimeoutMs) {
    return new Timings(minLeaseMs, leaseHeartbeats, minStaleMs, staleHeartbeats, sweepMs, campaignRowTimeoutMs,
        simulatorMinDelayMs, simulatorMaxDelayMs, keepaliveMs, metricsRefreshMs);
  }

  public Timings withSimulatorDelays(long minMs, long maxMs) {
    return new Timings(minLeaseMs, leaseHeartbeats, minStaleMs, staleHeartbeats, sweepMs, campaignRowTimeoutMs,
        minMs, maxMs, keepaliveMs, metricsRefreshMs);
  }

  public Timings withKeepalive(long keepaliveMs) {
    return new Timings(minLeaseMs, leaseHeartbeats, minStaleMs, staleHeartbeats, sweepMs, campaignRowTimeoutMs,
        simulatorMinDelayMs, simulatorMaxDelayMs, keepaliveMs, metricsRefreshMs);
  }

  public Timings withMetricsRefresh(long metricsRefreshMs) {
    return new Timings(minLeaseMs, leaseHeartbeats, minStaleMs, staleHeartbeats, sweepMs, campaignRowTimeoutMs,
        simulatorMinDelayMs, simulatorMaxDelayMs, keepaliveMs, metricsRefreshMs);
  }
}
