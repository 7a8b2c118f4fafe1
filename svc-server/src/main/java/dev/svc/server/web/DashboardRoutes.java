package dev.svc.server.web;

import dev.svc.engines.EngineCatalog;
import dev.svc.server.cluster.ClusterNode;
import dev.svc.server.cluster.Singletons;
import dev.svc.server.http.Guard;
import dev.svc.server.settings.GlobalSettings;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.CampaignStore;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;

/**
 * The browser dashboard: server-rendered pages, the login form and the self-hosted static files,
 * mounted on the API's router. {@code debug} turns template and static-file caching off.
 */
public final class DashboardRoutes {

  private DashboardRoutes() {
  }

  /**
   * Mounts every page; each page class is given the services it reads and nothing else.
   * {@code cluster} and {@code singletons} are null on a single node.
   */
  public static void mount(Router router, Vertx vertx, Guard guard, boolean debug, AgentStore agents, QuickTestStore tests,
      ResultStore results, CampaignStore campaigns, EventStore eventStore, GlobalSettings settings, EngineCatalog engines,
      String caFingerprint, ClusterNode cluster, Singletons singletons) {
    PageRenderer renderer = new PageRenderer(vertx, debug);
    PageAccess access = new PageAccess(guard);
    HomePage home = new HomePage(agents, tests, results, renderer, cluster, singletons);
    AgentPages agentPages = new AgentPages(agents, tests, caFingerprint, renderer);
    SettingsPage settingsPage = new SettingsPage(settings, renderer);
    ModelsPage models = new ModelsPage(vertx, settings, renderer);
    ResultPages resultPages = new ResultPages(vertx, agents, results, renderer);
    ResultExports exports = new ResultExports(vertx, results, renderer);
    QuickTestPages quickTests = new QuickTestPages(vertx, agents, tests, results, eventStore, settings, engines, renderer);
    CampaignPages campaignPages = new CampaignPages(vertx, agents, campaigns, eventStore, settings, engines, renderer);

    router.routeWithRegex("^/(?!api/).*").handler(SecurityHeaders::handle);
    StaticAssets.mount(router, debug);
    new LoginPage(guard, renderer).mount(router);
    router.get("/").handler(access::handle).handler(home::handle);
    router.get("/agents").handler(access::handle).handler(agentPages::list);
    router.get("/agents/:id").handler(access::handle).handler(agentPages::detail);
    router.get("/settings").handler(access::handle).handler(settingsPage::handle);
    router.get("/models").handler(access::handle).handler(models::handle);
    router.get("/results").handler(access::handle).handler(resultPages::list);
    router.get("/results/compare").handler(access::handle).handler(resultPages::compare);
    router.get("/results/compare.csv").handler(access::handle).handler(resultPages::compareCsv);
    router.get("/results/export.json").handler(access::handle).handler(exports::manyJson);
    router.get("/results/export.csv").handler(access::handle).handler(exports::manyCsv);
    router.get("/results/:id").handler(access::handle).handler(resultPages::detail);
    router.get("/results/:id/export.json").handler(access::handle).handler(exports::oneJson);
    router.get("/results/:id/export.csv").handler(access::handle).handler(exports::oneCsv);
    router.get("/quicktest").handler(access::handle).handler(quickTests::list);
    router.get("/quicktest/new").handler(access::handle).handler(quickTests::newForm);
    router.get("/quicktest/:id").handler(access::handle).handler(quickTests::detail);
    router.get("/campaigns").handler(access::handle).handler(campaignPages::list);
    router.get("/campaigns/new").handler(access::handle).handler(campaignPages::newForm);
    router.get("/campaigns/:id").handler(access::handle).handler(campaignPages::detail);
  }
}
