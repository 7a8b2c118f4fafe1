package dev.svc.server;

import dev.svc.core.home.SvcHome;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.engines.EngineCatalog;
import dev.svc.server.db.SqlDatabase;
import dev.svc.server.housekeeping.HousekeepingVerticle;
import dev.svc.server.http.ApiContext;
import dev.svc.server.http.ApiRouter;
import dev.svc.server.http.Guard;
import dev.svc.server.http.Sessions;
import dev.svc.server.legacy.LegacyRoutes;
import dev.svc.server.packaging.Downloads;
import dev.svc.server.results.ResultsIndexer;
import dev.svc.server.settings.GlobalSettings;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.store.CommandStore;
import dev.svc.server.campaigns.CampaignExecutor;
import dev.svc.server.dispatch.HeartbeatDispatcher;
import dev.svc.server.events.EventLog;
import dev.svc.server.events.EventLogVerticle;
import dev.svc.server.simulator.TestAgentSimulator;
import dev.svc.server.tests.TestTransitions;
import dev.svc.server.results.ResultRecorder;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import dev.svc.server.store.RetentionStore;
import dev.svc.server.store.SettingsStore;
import dev.svc.server.tls.ServerTls;
import dev.svc.server.web.DashboardRoutes;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;

/** Starts the server of `svc web` (or its legacy read-only variant) on a Vert.x instance. */
public final class SvcServer {

  /** A started server. */
  public record Running(Vertx vertx, int port, boolean tls, String caFingerprint, SqlDatabase database,
      EventLog events, List<String> routes) {
    /** Closing Vert.x closes the HTTP servers and the database pool with it. */
    public Future<Void> close() {
      return vertx.close();
    }
  }

  private SvcServer() {
  }

  public static Future<Running> start(Vertx vertx, ServerConfig config) {
    return vertx.executeBlocking(() -> config.insecure() ? null : ServerTls.prepare(config), false)
        .compose(tls -> config.legacy() ? startLegacy(vertx, config, tls) : startFull(vertx, config, tls));
  }

  private static HttpServerOptions options(ServerConfig config, ServerTls tls) {
    HttpServerOptions options = new HttpServerOptions().setHost(config.host()).setPort(config.port())
        .setCompressionSupported(true);
    return tls == null ? options : tls.apply(options);
  }

  private static Future<Running> startLegacy(Vertx vertx, ServerConfig config, ServerTls tls) {
    List<Path> roots = config.resultRoots(config.resultsDir());
    Supplier<Router> routes = () -> {
      Router router = Router.router(vertx);
      LegacyRoutes.mount(vertx, router, roots);
      return router;
    };
    return listen(vertx, routes, options(config, tls))
        .map(port -> new Running(vertx, port, tls != null, tls == null ? null : tls.ca().fingerprint(), null, null,
            ApiRouter.describe(routes.get())));
  }

  private static Future<Running> startFull(Vertx vertx, ServerConfig config, ServerTls tls) {
    return SqlDatabase.open(vertx, config.effectiveDbUrl()).compose(db -> {
      SettingsStore settingsStore = new SettingsStore(db.pool());
      return settingsStore.getOrCreate("_session_key", dev.svc.core.Ids.randomHex(32)).compose(sessionKey -> {
        EngineCatalog engines = EngineCatalog.load(config.home());
        GlobalSettings settings = new GlobalSettings(settingsStore, config.environment(), config.resultsDir().toString(),
            config.home().models().toString());
        Guard guard = new Guard(config.authToken(), new Sessions(HexFormat.of().parseHex(sessionKey), tls != null));
        CertificateAuthority clientCa = tls == null ? null : tls.clientCa();
        EventStore eventStore = new EventStore(db.pool());
        EventLog events = new EventLog(vertx, db.pool(), eventStore);
        QuickTestStore tests = new QuickTestStore(db.pool());
        CommandStore commands = new CommandStore(db.pool());
        ResultStore results = new ResultStore(db.pool());
        ApiContext api = new ApiContext(vertx, new AgentStore(db.pool()), tests, results, new CampaignStore(db.pool()),
            commands, settingsStore, events, eventStore, settings, engines, guard, clientCa, tls != null,
            db.schemaVersion(), config.timings(), new TestTransitions(tests, commands, events, vertx.eventBus()),
            new ResultRecorder(results, tests));
        ResultsIndexer indexer = new ResultsIndexer(vertx, api.results(), config.home().results());
        Downloads downloads = new Downloads(config.appHome(), config.home().root().resolve("cache"));
        Supplier<Router> routes = () -> {
          Router router = ApiRouter.create(api, downloads,
              dir -> indexer.index(dir == null ? config.resultsDir() : SvcHome.expand(dir)));
          DashboardRoutes.mount(router, api, config.debug());
          return router;
        };
        return settings.get(GlobalSettings.RESULTS_DIR)
            .compose(dir -> indexer.index(SvcHome.expand(dir)))
            .compose(v -> vertx.deployVerticle(new EventLogVerticle(events)))
            .compose(v -> vertx.deployVerticle(new HeartbeatDispatcher(api.agents(), api.tests(), api.commands(),
                api.events(), api.transitions(), config.timings())))
            .compose(v -> vertx.deployVerticle(new TestAgentSimulator(api)))
            .compose(v -> vertx.deployVerticle(new CampaignExecutor(api)))
            .compose(v -> vertx.deployVerticle(new HousekeepingVerticle(new RetentionStore(db.pool()), results, settings)))
            .compose(v -> listen(vertx, routes, options(config, tls)))
            .map(port -> new Running(vertx, port, tls != null, tls == null ? null : tls.ca().fingerprint(), db,
                events, ApiRouter.describe(routes.get())));
      }).onFailure(err -> db.close());
    });
  }

  private static Future<Integer> listen(Vertx vertx, Supplier<Router> routes, HttpServerOptions options) {
    HttpVerticle verticle = new HttpVerticle(routes, options);
    return vertx.deployVerticle(verticle).map(id -> verticle.actualPort());
  }
}
