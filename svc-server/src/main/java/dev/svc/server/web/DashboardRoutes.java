package dev.svc.server.web;

import dev.svc.server.http.ApiContext;
import io.vertx.ext.web.Router;

/**
 * The browser dashboard: server-rendered pages, the login form and the self-hosted static files,
 * mounted on the API's router. {@code debug} turns template and static-file caching off.
 */
public final class DashboardRoutes {

  private DashboardRoutes() {
  }

  public static void mount(Router router, ApiContext api, boolean debug) {
    PageRenderer renderer = new PageRenderer(api.vertx(), debug);
    PageAccess access = new PageAccess(api.guard());
    HomePage home = new HomePage(api, renderer);
    AgentPages agents = new AgentPages(api, renderer);
    SettingsPage settings = new SettingsPage(api, renderer);
    ModelsPage models = new ModelsPage(api, renderer);
    ResultPages results = new ResultPages(api, renderer);
    ResultExports exports = new ResultExports(api, renderer);
    QuickTestPages quickTests = new QuickTestPages(api, renderer);
    CampaignPages campaigns = new CampaignPages(api, renderer);

    router.routeWithRegex("^/(?!api/).*").handler(SecurityHeaders::handle);
    StaticAssets.mount(router, debug);
    new LoginPage(api.guard(), renderer).mount(router);
    router.get("/").handler(access::handle).handler(home::handle);
    router.get("/agents").handler(access::handle).handler(agents::list);
    router.get("/agents/:id").handler(access::handle).handler(agents::detail);
    router.get("/settings").handler(access::handle).handler(settings::handle);
    router.get("/models").handler(access::handle).handler(models::handle);
    router.get("/results").handler(access::handle).handler(results::list);
    router.get("/results/compare").handler(access::handle).handler(results::compare);
    router.get("/results/export.json").handler(access::handle).handler(exports::manyJson);
    router.get("/results/export.csv").handler(access::handle).handler(exports::manyCsv);
    router.get("/results/:id").handler(access::handle).handler(results::detail);
    router.get("/results/:id/export.json").handler(access::handle).handler(exports::oneJson);
    router.get("/results/:id/export.csv").handler(access::handle).handler(exports::oneCsv);
    router.get("/quicktest").handler(access::handle).handler(quickTests::list);
    router.get("/quicktest/new").handler(access::handle).handler(quickTests::newForm);
    router.get("/quicktest/:id").handler(access::handle).handler(quickTests::detail);
    router.get("/campaigns").handler(access::handle).handler(campaigns::list);
    router.get("/campaigns/new").handler(access::handle).handler(campaigns::newForm);
    router.get("/campaigns/:id").handler(access::handle).handler(campaigns::detail);
  }
}
