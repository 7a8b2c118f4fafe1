package dev.svc.server.metrics;

import dev.svc.core.domain.AgentStatus;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.server.cluster.ClusterNode;
import dev.svc.server.cluster.Singletons;
import dev.svc.server.http.AuthThrottle;
import dev.svc.server.store.LiveFleet;
import dev.svc.server.store.QuickTestStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * svc's own meters of one node, in the registry of its {@link NodeMetrics}: agents and tests by
 * status, heartbeats taken, open event streams, campaign runs, the failed-authentication counters
 * and, in a cluster, its members and whether the singletons run here.
 *
 * <p>A scrape must never wait for the database, so every gauge reads memory. What lives elsewhere
 * (the agents' statuses in the {@link LiveFleet}, the tests' totals in {@code list_counts}) is
 * copied into memory when this verticle starts and then every {@code metricsRefreshMs}; a failed
 * read keeps the last values.
 */
public final class SvcMeters extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(SvcMeters.class);

  private final MeterRegistry registry;
  private final LiveFleet fleet;
  private final QuickTestStore tests;
  private final long refreshMs;
  private final Map<AgentStatus, AtomicLong> agents = new EnumMap<>(AgentStatus.class);
  private final Map<QuickTestStatus, AtomicLong> testTotals = new EnumMap<>(QuickTestStatus.class);
  private final Counter heartbeats;
  private final AtomicInteger streams = new AtomicInteger();
  private final AtomicInteger campaignRuns = new AtomicInteger();
  private final AtomicInteger members = new AtomicInteger();
  private volatile ClusterNode node;
  private long timer = -1;
  private Future<Void> refreshing = Future.succeededFuture();

  public SvcMeters(MeterRegistry registry, LiveFleet fleet, QuickTestStore tests, AuthThrottle throttle,
      long refreshMs) {
    this.registry = registry;
    this.fleet = fleet;
    this.tests = tests;
    this.refreshMs = refreshMs;
    for (AgentStatus status : AgentStatus.values()) {
      AtomicLong value = new AtomicLong();
      agents.put(status, value);
      gauge("svc.agents.online", "Agents by status (deleted ones left out).", value)
          .tag("status", status.wireName()).register(registry);
    }
    for (QuickTestStatus status : QuickTestStatus.values()) {
      AtomicLong value = new AtomicLong();
      testTotals.put(status, value);
      gauge("svc.tests", "Quick tests by status (campaign rows included).", value)
          .tag("status", status.wireName()).register(registry);
    }
    heartbeats = Counter.builder("svc.heartbeats").description("Agent heartbeats this node answered.")
        .register(registry);
    gauge("svc.sse.subscribers", "Event streams open on this node.", streams).register(registry);
    gauge("svc.campaign.runs", "Campaigns running on this node (0 on the nodes that do not run the singletons).",
        campaignRuns).register(registry);
    // the counters of GET /api/v1/metrics, from the same throttle (synchronized, no I/O)
    FunctionCounter.builder("svc.auth.failures", throttle, t -> t.counts().failures())
        .description("Credentials refused (tokens, logins, client certificates).").register(registry);
    FunctionCounter.builder("svc.auth.lockouts", throttle, t -> t.counts().lockouts())
        .description("Client addresses locked out by the failed-authentication throttle.").register(registry);
    FunctionCounter.builder("svc.auth.throttled", throttle, t -> t.counts().throttled())
        .description("Requests answered 429 during a lock-out.").register(registry);
    Gauge.builder("svc.auth.locked.addresses", throttle, t -> t.counts().lockedNow())
        .description("Client addresses locked out now.").strongReference(true).register(registry);
  }

  private static Gauge.Builder<Number> gauge(String name, String help, Number value) {
    // held strongly: a gauge keeps only a weak reference to what it reads unless told otherwise
    return Gauge.builder(name, value, Number::doubleValue).description(help).strongReference(true);
  }

  /** A node of a cluster: also the members it sees and whether it runs the singletons now (1) or not (0). */
  public SvcMeters cluster(ClusterNode node, Singletons singletons) {
    this.node = node;
    members.set(node.memberCount());
    gauge("svc.cluster.members", "Nodes of the cluster this node sees, itself included.", members).register(registry);
    Gauge.builder("svc.singletons.here", singletons, s -> s.runningHere() ? 1 : 0)
        .description("1 while this node holds the claim and runs the singletons (sweeps, campaigns, housekeeping).")
        .strongReference(true).register(registry);
    return this;
  }

  /** Counts a heartbeat answered (any thread). */
  public void heartbeat() {
    heartbeats.increment();
  }

  /** An event stream opened (+1) or ended (-1), on any event loop. */
  public void streams(int delta) {
    streams.addAndGet(delta);
  }

  /** How many campaigns the executor of this node runs now. */
  public void campaignRuns(int running) {
    campaignRuns.set(running);
  }

  @Override
  public Future<?> start() {
    timer = vertx.setPeriodic(refreshMs, id -> refresh());
    return refresh();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(timer);
    return Future.succeededFuture();
  }

  /** Copies the values kept elsewhere; one read of the database at a time, whose failure keeps the last values. */
  private Future<Void> refresh() {
    Map<String, Long> statuses = fleet.statusCounts();
    agents.forEach((status, value) -> value.set(statuses.getOrDefault(status.wireName(), 0L)));
    ClusterNode clustered = node;
    if (clustered != null) {
      members.set(clustered.memberCount());
    }
    if (!refreshing.isComplete()) {
      return refreshing;
    }
    refreshing = tests.countsByStatus().<Void>map(totals -> {
      testTotals.forEach((status, value) -> value.set(totals.getOrDefault(status.wireName(), 0L)));
      return null;
    }).recover(err -> {
      LOG.debug("Test totals for the metrics not read: {}", err.toString());
      return Future.succeededFuture();
    });
    return refreshing;
  }
}
