package dev.svc.server;

import dev.svc.core.EventLoops;
import dev.svc.core.Ids;
import dev.svc.core.home.PrivateFiles;
import dev.svc.core.home.SvcHome;
import dev.svc.core.tls.ServerCertificate;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.engines.EngineCatalog;
import dev.svc.server.cluster.ClusterNode;
import dev.svc.server.cluster.FleetSync;
import dev.svc.server.cluster.Singletons;
import dev.svc.server.db.SqlDatabase;
import dev.svc.server.dispatch.AgentSweeps;
import dev.svc.server.store.ClaimStore;
import dev.svc.server.housekeeping.HousekeepingVerticle;
import dev.svc.server.http.AgentAdminRoutes;
import dev.svc.server.http.AgentProtocolRoutes;
import dev.svc.server.http.ApiRouter;
import dev.svc.server.http.AuthThrottle;
import dev.svc.server.http.CampaignRoutes;
import dev.svc.server.http.DownloadRoutes;
import dev.svc.server.http.EventStreamRoutes;
import dev.svc.server.http.Guard;
import dev.svc.server.http.HostAllowlist;
import dev.svc.server.http.MetricsRoutes;
import dev.svc.server.http.QuickTestRoutes;
import dev.svc.server.http.RequestGate;
import dev.svc.server.http.ResultRoutes;
import dev.svc.server.http.ResultSubmission;
import dev.svc.server.http.Sessions;
import dev.svc.server.http.SettingsRoutes;
import dev.svc.server.http.SystemRoutes;
import dev.svc.server.legacy.LegacyRoutes;
import dev.svc.server.metrics.NodeMetrics;
import dev.svc.server.metrics.SvcMeters;
import dev.svc.server.packaging.Downloads;
import dev.svc.server.results.ResultsIndexer;
import dev.svc.server.settings.GlobalSettings;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.store.CommandStore;
import dev.svc.server.campaigns.CampaignExecutor;
import dev.svc.server.campaigns.CampaignServices;
import dev.svc.server.dispatch.HeartbeatDispatcher;
import dev.svc.server.events.EventBridge;
import dev.svc.server.events.EventLog;
import dev.svc.server.events.EventLogVerticle;
import dev.svc.server.simulator.SimulatorServices;
import dev.svc.server.simulator.TestAgentSimulator;
import dev.svc.server.quicktests.TestTransitions;
import dev.svc.server.results.ResultRecorder;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.LiveFleet;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import dev.svc.server.store.RetentionStore;
import dev.svc.server.store.SettingsStore;
import dev.svc.server.tls.ServerTls;
import dev.svc.server.web.DashboardRoutes;
import io.vertx.core.Deployable;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/** Starts the server of `svc web` (or its legacy read-only variant) on a Vert.x instance. */
public final class SvcServer {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SvcServer.class);

  /** SVC_AUTH_MAX_FAILURES: how many failed authentications in a row an address may make before 429. */
  static final String MAX_FAILURES_ENV = "SVC_AUTH_MAX_FAILURES";

  /** Where earlier versions kept the session key: the settings table, readable with svc.db. */
  static final String LEGACY_SESSION_KEY_SETTING = "_session_key";

  /** HTTP verticle instances: one per core. */
  static final int HTTP_INSTANCES = Math.max(1, Runtime.getRuntime().availableProcessors());

  /**
   * A started server.
   *
   * @param bridgePort the TCP event-bus bridge's port; null when there is no bridge
   * @param cluster this node's membership of a cluster; null for a single node
   */
  public record Running(Vertx vertx, int port, boolean tls, String caFingerprint, SqlDatabase database,
      EventLog events, List<String> routes, Integer bridgePort, ClusterNode cluster, Singletons singletons) {
    /**
     * Stops every verticle first, while the database pool is still open (the dispatcher writes the
     * heartbeats it still holds; in a cluster the singletons give their claim up), then closes
     * Vert.x, the HTTP servers and the pool with it (and leaves the cluster).
     */
    public Future<Void> close() {
      Future<Void> withdrawn = cluster == null ? Future.succeededFuture()
          : cluster.withdraw().recover(err -> Future.succeededFuture());
      // the singletons first, on their own: they stop the verticles they deployed before the claim is given up
      String singletonsId = singletons == null ? null : singletons.deploymentId();
      Future<?> stopped = withdrawn
          .transform(w -> singletonsId == null ? Future.<Void>succeededFuture() : vertx.undeploy(singletonsId))
          .transform(s -> Future.join(vertx.deploymentIDs().stream().map(vertx::undeploy).toList()));
      // completed off every context: once Vert.x is closed, none is left to run a continuation on
      java.util.concurrent.CompletableFuture<Void> closed = new java.util.concurrent.CompletableFuture<>();
      stopped.onComplete(ar -> vertx.close().onComplete(c -> closed.complete(null)));
      return Future.fromCompletionStage(closed);
    }
  }

  private SvcServer() {
  }

  public static Future<Running> start(Vertx vertx, ServerConfig config) {
    return start(vertx, config, null, null);
  }

  /**
   * Starts a node of a cluster ({@code node} is how it joined, its Vert.x is {@code vertx}; null for a
   * single node). {@code metrics}: the registry {@code vertx} was built to report into
   * ({@link NodeMetrics#vertx}, {@link ClusterNode#join}), which GET /metrics serves; when null, a registry
   * of the server's own, without Vert.x's meters.
   */
  public static Future<Running> start(Vertx vertx, ServerConfig config, ClusterNode node, NodeMetrics metrics) {
    try {
      config.checkCluster();
      if ((config.cluster() == null) != (node == null)) {
        throw new IllegalArgumentException("a cluster node needs both its settings and its membership");
      }
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    Integer bridgePort = config.bridgePort();
    if (bridgePort != null && config.legacy()) {
      return Future.failedFuture(new IllegalArgumentException(
          "--bridge-port needs the server with a database: the --legacy dashboard has no events to bridge"));
    }
    if (bridgePort != null && bridgePort != 0 && bridgePort == config.port()) {
      // in one Vert.x instance two listeners on one port share it, which would mix HTTP and bridge connections
      return Future.failedFuture(new IllegalArgumentException("--bridge-port must differ from --port (" + bridgePort + ")"));
    }
    return vertx.executeBlocking(() -> {
      // before anything is written there: the home and its secrets are owner-only
      config.home().securePrivateFiles();
      return null;
    }, false).compose(v -> {
      // the TLS material and the database do not depend on each other: both made ready at once, on two workers
      Future<ServerTls> tls = vertx.executeBlocking(() -> config.insecure() ? null : ServerTls.prepare(config), false);
      if (config.legacy()) {
        return tls.compose(t -> startLegacy(vertx, config, t));
      }
      Future<SqlDatabase> db = SqlDatabase.open(vertx, config.effectiveDbUrl());
      return Future.join(tls, db).transform(ar -> {
        if (ar.failed() && db.succeeded()) {
          db.result().close();
        }
        return ar.failed() ? Future.failedFuture(ar.cause())
            : startFull(vertx, config, tls.result(), db, node, metrics == null ? NodeMetrics.create() : metrics);
      });
    });
  }

  /**
   * The host names the server answers to (besides IP literals): localhost, this machine's name,
   * the --san names, the --host address unless it is a wildcard, and the certificate's names.
   */
  static HostAllowlist hosts(ServerConfig config, ServerTls tls) {
    List<String> names = new ArrayList<>(ServerCertificate.defaultSans(config.sans()));
    if (config.host() != null && !List.of("0.0.0.0", "::", "[::]").contains(config.host())) {
      names.add(config.host());
    }
    if (tls != null) {
      names.addAll(tls.certificateNames());
    }
    return HostAllowlist.of(names);
  }

  private static AuthThrottle throttle(ServerConfig config) {
    String configured = config.environment() == null ? null : config.environment().get(MAX_FAILURES_ENV);
    if (configured == null || configured.isBlank()) {
      return AuthThrottle.withBurst(AuthThrottle.DEFAULT_BURST);
    }
    if (!configured.trim().matches("[1-9]\\d{0,8}")) {
      throw new IllegalArgumentException(MAX_FAILURES_ENV + " must be a positive integer, not '" + configured + "'");
    }
    return AuthThrottle.withBurst(Integer.parseInt(configured.trim()));
  }

  /**
   * The key that signs sessions and CSRF tokens lives in {@code <home>/secrets/session.key}
   * (0600), not in the database: a copy of svc.db (a backup of results) must not let anyone forge
   * an admin session. A key an older version kept in the settings table is deleted, not moved:
   * that table was readable by every local user, so the old key counts as exposed and its sessions
   * end once (users log in again).
   */
  private static Future<byte[]> sessionKey(Vertx vertx, ServerConfig config, SettingsStore settings) {
    return vertx.executeBlocking(() -> {
      String hex = PrivateFiles.readOrCreate(config.home().sessionKey(), () -> Ids.randomHex(32));
      if (!hex.matches("([0-9a-f]{2}){32,}")) {
        LOG.warn("{} does not hold a session key (64 or more hex digits); writing a new one (sessions end)",
            config.home().sessionKey());
        hex = Ids.randomHex(32);
        PrivateFiles.write(config.home().sessionKey(), hex + "\n");
      }
      return HexFormat.of().parseHex(hex);
    }, false).compose(key -> {
      Map<String, String> obsolete = new HashMap<>();
      obsolete.put(LEGACY_SESSION_KEY_SETTING, null);
      return settings.put(obsolete).map(key);
    });
  }

  /**
   * Once the server serves, loads on a worker what its start did without and its first agents
   * need: what checks their client certificates.
   */
  private static void preload(Vertx vertx, ServerTls tls) {
    if (tls != null) {
      vertx.executeBlocking(() -> {
        tls.clientCa().preload();
        return null;
      }, false).onFailure(err -> LOG.warn("Preloading the client certificate checks failed: {}", err.toString()));
    }
  }

  private static HttpServerOptions options(ServerConfig config, ServerTls tls) {
    HttpServerOptions options = new HttpServerOptions().setHost(config.host()).setPort(config.port())
        .setCompressionSupported(true);
    return tls == null ? options : tls.apply(options);
  }

  private static Future<Running> startLegacy(Vertx vertx, ServerConfig config, ServerTls tls) {
    List<Path> roots = config.resultRoots(config.resultsDir());
    HostAllowlist hosts = hosts(config, tls);
    Supplier<Router> routes = () -> {
      Router router = Router.router(vertx);
      router.route().handler(RequestGate.hostOnly(hosts));
      LegacyRoutes.mount(vertx, router, roots);
      return router;
    };
    return listen(vertx, routes, options(config, tls))
        .map(port -> new Running(vertx, port, tls != null, tls == null ? null : tls.ca().fingerprint(), null, null,
            ApiRouter.describe(routes.get()), null, null, null));
  }

  private static Future<Running> startFull(Vertx vertx, ServerConfig config, ServerTls tls, Future<SqlDatabase> opened,
      ClusterNode node, NodeMetrics metrics) {
    return opened.compose(db -> {
      SettingsStore settingsStore = new SettingsStore(db.pool());
      Future<EventLoops.Contexts> eventLogLoop = EventLoops.contexts(vertx, 1);
      return Future.all(sessionKey(vertx, config, settingsStore), eventLogLoop).compose(ready -> {
        EventStore eventStore = new EventStore(db.pool(), db.postgres());
        io.vertx.core.Context logContext = eventLogLoop.result().get(0);
        Future<EventLog> eventLog = node == null
            ? Future.succeededFuture(new EventLog(vertx, db.pool(), eventStore, logContext))
            : EventLog.clustered(vertx, db.pool(), eventStore, logContext);
        return eventLog.compose(events -> startServices(vertx, config, tls, db, node, metrics, ready.resultAt(0),
            settingsStore, eventStore, events));
      }).onFailure(err -> db.close());
    });
  }

  private static Future<Running> startServices(Vertx vertx, ServerConfig config, ServerTls tls, SqlDatabase db,
      ClusterNode node, NodeMetrics metrics, byte[] sessionKey, SettingsStore settingsStore, EventStore eventStore,
      EventLog events) {
    EngineCatalog engines = EngineCatalog.load(config.home());
    GlobalSettings settings = new GlobalSettings(settingsStore, config.environment(), config.resultsDir().toString(),
        config.home().models().toString());
    Guard guard = new Guard(config.authToken(), new Sessions(sessionKey, tls != null), hosts(config, tls),
        throttle(config));
    CertificateAuthority clientCa = tls == null ? null : tls.clientCa();
    QuickTestStore tests = new QuickTestStore(db.pool());
    LiveFleet fleet = new LiveFleet();
    CommandStore commands = new CommandStore(db.pool(), fleet);
    ResultStore results = new ResultStore(db.pool());
    AgentStore agents = new AgentStore(db.pool(), fleet);
    CampaignStore campaigns = new CampaignStore(db.pool());
    TestTransitions transitions = new TestTransitions(tests, commands, events, vertx.eventBus(), fleet);
    ResultRecorder resultRecorder = new ResultRecorder(results, tests);
    ResultsIndexer indexer = new ResultsIndexer(vertx, results, config.home().results());
    Downloads downloads = new Downloads(config.appHome(), config.home().root().resolve("cache"));
    String caFingerprint = tls == null ? null : tls.pinnableFingerprint();
    SvcMeters meters = new SvcMeters(metrics.registry(), fleet, tests, guard.throttle(),
        config.timings().metricsRefreshMs());
    // one of each per deployment: here, or on the node that holds their claim
    Supplier<List<Deployable>> singletonVerticles = () -> List.of(
        new AgentSweeps(agents, tests, events, transitions, config.timings()),
        new TestAgentSimulator(new SimulatorServices(agents, tests, transitions, engines, events, eventStore,
            resultRecorder, config.timings())),
        new CampaignExecutor(new CampaignServices(vertx, campaigns, agents, tests, transitions, events,
            config.timings()), meters::campaignRuns),
        new HousekeepingVerticle(new RetentionStore(db.pool()), results, settings));
    Singletons singletons = node == null ? Singletons.here(singletonVerticles)
        : Singletons.underClaim(singletonVerticles, new ClaimStore(db.pool()), node.id(), node.settings());
    if (node != null) {
      meters.cluster(node, singletons);
    }
    // each area and page is given the services it uses; one router per HTTP verticle
    Supplier<Router> routes = () -> {
      Router router = ApiRouter.create(vertx, RequestGate.of(guard, agents::tokenHashExists), List.of(
          new SystemRoutes(guard, db.schemaVersion(), node, singletons),
          new MetricsRoutes(vertx, guard, metrics),
          new AgentProtocolRoutes(vertx, agents, events, guard, clientCa, tls != null,
              new ResultSubmission(tests, events, transitions, resultRecorder)),
          new AgentAdminRoutes(agents, commands, events, guard, transitions),
          new QuickTestRoutes(agents, tests, events, eventStore, engines, guard, transitions),
          new CampaignRoutes(vertx, agents, tests, campaigns, events, eventStore, engines, guard, transitions),
          new ResultRoutes(vertx, results, guard, events),
          new SettingsRoutes(vertx, settings, guard,
              dir -> indexer.index(dir == null ? config.resultsDir() : SvcHome.expand(dir))),
          new DownloadRoutes(vertx, downloads),
          new EventStreamRoutes(vertx, events, eventStore, guard, config.timings(), agents, tests, campaigns,
              meters::streams)));
      DashboardRoutes.mount(router, vertx, guard, config.debug(), agents, tests, results, campaigns, eventStore, settings,
          engines, caFingerprint, node, singletons);
      return router;
    };
    // a lock-out's end is logged within a second of it, whether or not its address comes back
    vertx.setPeriodic(1000, timer -> guard.logEndedLockouts());
    // the walk of the results on disk (a worker's) runs beside the deployments and ends before the
    // server listens, so that the first request lists every result
    Future<Integer> indexed = settings.get(GlobalSettings.RESULTS_DIR).compose(dir -> indexer.index(SvcHome.expand(dir)));
    return fleet.load(db.pool())
        .compose(v -> node == null ? Future.succeededFuture() : FleetSync.connect(vertx, fleet, db.pool(), node.id()))
        .compose(v -> vertx.deployVerticle(new EventLogVerticle(events)))
        .compose(v -> vertx.deployVerticle(new HeartbeatDispatcher(agents, tests, commands, events, transitions,
            config.timings(), meters::heartbeat)))
        .compose(v -> vertx.deployVerticle(meters))
        .compose(v -> vertx.deployVerticle(singletons))
        .compose(v -> indexed)
        .compose(v -> listen(vertx, routes, options(config, tls)))
        .onSuccess(port -> preload(vertx, tls))
        .compose(port -> node == null ? Future.succeededFuture(port)
            : node.announce((tls != null ? "https" : "http") + "://" + advertisedHost(config) + ":" + port).map(port))
        .compose(port -> bridge(vertx, config, tls, guard).map(bridgePort -> new Running(vertx, port, tls != null,
            tls == null ? null : tls.ca().fingerprint(), db, events, ApiRouter.describe(routes.get()), bridgePort, node,
            singletons)));
  }

  /** The host other nodes and health show for this node: the bound address, or the cluster address when bound to all. */
  private static String advertisedHost(ServerConfig config) {
    String host = config.host();
    return host == null || List.of("0.0.0.0", "::", "[::]").contains(host) ? config.cluster().host() : host;
  }

  /** The TCP event-bus bridge when --bridge-port is set (its port), else none (null). */
  private static Future<Integer> bridge(Vertx vertx, ServerConfig config, ServerTls tls, Guard guard) {
    if (config.bridgePort() == null) {
      return Future.succeededFuture(null);
    }
    EventBridge bridge = new EventBridge(config.host(), config.bridgePort(), tls, guard);
    return vertx.deployVerticle(bridge).map(id -> bridge.actualPort());
  }

  /**
   * One HTTP verticle per core, each with its router on its own event loop: connections are spread over
   * them, so a thousand open event streams are served by every core, not by one loop.
   */
  private static Future<Integer> listen(Vertx vertx, Supplier<Router> routes, HttpServerOptions options) {
    HttpServerOptions shared = new HttpServerOptions(options);
    if (shared.getPort() == 0) {
      shared.setPort(-1); // port 0 binds a port per instance; a negative one is a random port they share
    }
    List<HttpVerticle> instances = new CopyOnWriteArrayList<>();
    return vertx.deployVerticle(() -> {
      HttpVerticle verticle = new HttpVerticle(routes, shared);
      instances.add(verticle);
      return verticle;
    }, new DeploymentOptions().setInstances(HTTP_INSTANCES)).map(id -> {
      int port = instances.get(0).actualPort();
      if (instances.stream().anyMatch(v -> v.actualPort() != port)) {
        throw new IllegalStateException("The HTTP verticles listen on different ports");
      }
      return port;
    });
  }
}
