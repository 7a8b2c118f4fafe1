package dev.svc.server.web;

import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** GET /: the fleet at a glance (agents online/offline/running, tests in flight) and the latest results. */
final class HomePage {

  static final int LATEST_RESULTS = 10;
  static final List<String> IN_FLIGHT = List.of("queued", "dispatched", "running");

  private final ApiContext api;
  private final PageRenderer renderer;

  HomePage(ApiContext api, PageRenderer renderer) {
    this.api = api;
    this.renderer = renderer;
  }

  void handle(RoutingContext ctx) {
    // counted in the database (never every agent's row): the fleet's numbers, the tests in flight
    var fleet = api.agents().fleetCounts(PageRows.ONLINE_STATUSES);
    var inFlight = api.tests().totalIn(IN_FLIGHT);
    var results = api.results().list(null, null, null, null, null, null, LATEST_RESULTS, 0);
    Future.all(fleet, inFlight, results).map(v -> {
      JsonObject counts = fleet.result();
      Map<String, Object> model = new HashMap<>();
      model.put("agents_total", counts.getLong("total"));
      model.put("agents_online", counts.getLong("online"));
      model.put("agents_offline", counts.getLong("total") - counts.getLong("online"));
      model.put("agents_running", counts.getLong("running"));
      model.put("tests_in_flight", inFlight.result());
      model.put("results", results.result().items().stream().map(PageRows::result).toList());
      return model;
    }).onSuccess(model -> renderer.render(ctx, 200, "home", "home", model)).onFailure(ctx::fail);
  }
}
