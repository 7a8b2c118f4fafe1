package dev.svc.server.web;

import dev.svc.server.cluster.ClusterNode;
import dev.svc.server.cluster.Singletons;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GET /: the fleet at a glance (agents online/offline/running, tests in flight), the latest results
 * and, on a node of a cluster, the nodes: which one serves this page and which runs the singletons.
 */
final class HomePage {

  static final int LATEST_RESULTS = 10;
  static final List<String> IN_FLIGHT = List.of("queued", "dispatched", "running");

  private final AgentStore agents;
  private final QuickTestStore tests;
  private final ResultStore results;
  private final PageRenderer renderer;
  private final ClusterNode cluster;
  private final Singletons singletons;

  /** {@code cluster} and {@code singletons}: null on a single node. */
  HomePage(AgentStore agents, QuickTestStore tests, ResultStore results, PageRenderer renderer, ClusterNode cluster,
      Singletons singletons) {
    this.agents = agents;
    this.tests = tests;
    this.results = results;
    this.renderer = renderer;
    this.cluster = cluster;
    this.singletons = singletons;
  }

  void handle(RoutingContext ctx) {
    // counted in the database (never every agent's row): the fleet's numbers, the tests in flight
    var fleet = agents.fleetCounts(PageRows.ONLINE_STATUSES);
    var inFlight = tests.totalIn(IN_FLIGHT);
    var latest = results.list(null, null, null, null, null, null, LATEST_RESULTS, 0);
    Future<List<ClusterNode.Member>> members = cluster == null ? Future.succeededFuture(List.of()) : cluster.members();
    Future.all(fleet, inFlight, latest, members).map(v -> {
      AgentStore.FleetCounts counts = fleet.result();
      Map<String, Object> model = new HashMap<>();
      model.put("agents_total", counts.total());
      model.put("agents_online", counts.online());
      model.put("agents_offline", counts.total() - counts.online());
      model.put("agents_running", counts.running());
      model.put("tests_in_flight", inFlight.result());
      model.put("results", latest.result().items().stream().map(PageRows::result).toList());
      String holder = singletons == null ? null : singletons.holder();
      model.put("nodes", members.result().stream().map(m -> {
        Map<String, Object> row = new HashMap<>();
        row.put("id", m.id());
        row.put("url", m.url() == null ? "" : m.url());
        row.put("self", m.self());
        row.put("singletons", m.id().equals(holder));
        return row;
      }).toList());
      return model;
    }).onSuccess(model -> renderer.render(ctx, 200, "home", "home", model)).onFailure(ctx::fail);
  }
}
