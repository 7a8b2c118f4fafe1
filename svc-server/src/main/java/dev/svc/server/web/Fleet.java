package dev.svc.server.web;

import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A snapshot of the fleet: the live agents, which of them are running something (a dispatched or
 * running test, or a reported "running" status) and how many tests are in flight.
 */
record Fleet(List<JsonObject> agents, Set<String> busyAgentIds, long testsInFlight) {

  /** Active tests looked at per status to find busy agents; an agent runs one test at a time. */
  private static final int ACTIVE_LIMIT = 10_000;

  static Future<Fleet> load(ApiContext api) {
    Future<List<JsonObject>> agents = api.agents().all();
    var queued = api.tests().list("queued", null, null, null, null, 1, 0);
    var dispatched = api.tests().list("dispatched", null, null, null, null, ACTIVE_LIMIT, 0);
    var running = api.tests().list("running", null, null, null, null, ACTIVE_LIMIT, 0);
    return Future.all(agents, queued, dispatched, running).map(v -> {
      Set<String> busy = new HashSet<>();
      dispatched.result().items().forEach(t -> busy.add(t.getString("agent_id")));
      running.result().items().forEach(t -> busy.add(t.getString("agent_id")));
      for (JsonObject agent : agents.result()) {
        if ("running".equals(agent.getString("status"))) {
          busy.add(agent.getString("id"));
        }
      }
      long inFlight = queued.result().total() + dispatched.result().total() + running.result().total();
      return new Fleet(agents.result(), busy, inFlight);
    });
  }

  boolean busy(JsonObject agent) {
    return busyAgentIds.contains(agent.getString("id"));
  }

  long online() {
    return agents.stream().filter(PageRows::isOnline).count();
  }

  long offline() {
    return agents.size() - online();
  }

  long running() {
    return agents.stream().filter(this::busy).count();
  }
}
