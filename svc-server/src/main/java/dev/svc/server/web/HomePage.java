package dev.svc.server.web;

import dev.svc.server.http.ApiContext;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.Map;

/** GET /: the fleet at a glance (agents online/offline/running, tests in flight) and the latest results. */
final class HomePage {

  static final int LATEST_RESULTS = 10;

  private final ApiContext api;
  private final PageRenderer renderer;

  HomePage(ApiContext api, PageRenderer renderer) {
    this.api = api;
    this.renderer = renderer;
  }

  void handle(RoutingContext ctx) {
    var results = api.results().list(null, null, null, null, null, null, LATEST_RESULTS, 0);
    Fleet.load(api).compose(fleet -> results.map(page -> {
      Map<String, Object> model = new HashMap<>();
      model.put("agents_total", fleet.agents().size());
      model.put("agents_online", fleet.online());
      model.put("agents_offline", fleet.offline());
      model.put("agents_running", fleet.running());
      model.put("tests_in_flight", fleet.testsInFlight());
      model.put("results", page.items().stream().map(PageRows::result).toList());
      return model;
    })).onSuccess(model -> renderer.render(ctx, 200, "home", "home", model)).onFailure(ctx::fail);
  }
}
