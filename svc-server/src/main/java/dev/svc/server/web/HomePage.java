package dev.svc.server.web;

import dev.svc.server.store.AgentStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** GET /: the fleet at a glance (agents online/offline/running, tests in flight) and the latest results. */
final class HomePage {

  static final int LATEST_RESULTS = 10;
  static final List<String> IN_FLIGHT = List.of("queued", "dispatched", "running");

  private final AgentStore agents;
  private final QuickTestStore tests;
  private final ResultStore results;
  private final PageRenderer renderer;

  HomePage(AgentStore agents, QuickTestStore tests, ResultStore results, PageRenderer renderer) {
    this.agents = agents;
    this.tests = tests;
    this.results = results;
    this.renderer = renderer;
  }

  void handle(RoutingContext ctx) {
    // counted in the database (never every agent's row): the fleet's numbers, the tests in flight
    var fleet = agents.fleetCounts(PageRows.ONLINE_STATUSES);
    var inFlight = tests.totalIn(IN_FLIGHT);
    var latest = results.list(null, null, null, null, null, null, LATEST_RESULTS, 0);
    Future.all(fleet, inFlight, latest).map(v -> {
      AgentStore.FleetCounts counts = fleet.result();
      Map<String, Object> model = new HashMap<>();
      model.put("agents_total", counts.total());
      model.put("agents_online", counts.online());
      model.put("agents_offline", counts.total() - counts.online());
      model.put("agents_running", counts.running());
      model.put("tests_in_flight", inFlight.result());
      model.put("results", latest.result().items().stream().map(PageRows::result).toList());
      return model;
    }).onSuccess(model -> renderer.render(ctx, 200, "home", "home", model)).onFailure(ctx::fail);
  }
}
