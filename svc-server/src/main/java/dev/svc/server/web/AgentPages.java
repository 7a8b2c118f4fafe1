package dev.svc.server.web;

import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.Map;

/**
 * GET /agents (the list, live through SSE, the Enrol a GPU host card, which carries the CA fingerprint
 * agents pin when the server has one, and the Create Test Agent form) and GET /agents/:id
 * (hardware, heartbeat metrics, the Settings card and, for real agents, the Storage card).
 */
final class AgentPages {

  private final ApiContext api;
  private final PageRenderer renderer;

  AgentPages(ApiContext api, PageRenderer renderer) {
    this.api = api;
    this.renderer = renderer;
  }

  void list(RoutingContext ctx) {
    Fleet.load(api).onSuccess(fleet -> {
      Map<String, Object> model = new HashMap<>();
      model.put("agents", fleet.agents().stream().map(a -> PageRows.agent(a, fleet.busy(a))).toList());
      model.put("ca_fingerprint", api.caFingerprint());
      renderer.render(ctx, 200, "agents", "agents", model);
    }).onFailure(ctx::fail);
  }

  void detail(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    api.agents().byId(id).onSuccess(found -> {
      if (found.isEmpty()) {
        renderer.render(ctx, 404, "not_found", "agents", Map.of("what", "agent " + id));
        return;
      }
      JsonObject row = found.get();
      var active = api.tests().activeOfAgent(id);
      var settings = api.agents().settings(id);
      Future.all(active, settings).onSuccess(v -> {
        boolean testAgent = PageRows.isTestAgent(row);
        Map<String, Object> model = new HashMap<>();
        model.put("agent", PageRows.agent(row, !active.result().isEmpty() || "running".equals(row.getString("status"))));
        model.put("hardware", PageRows.hardware(row));
        model.put("heartbeat", PageRows.heartbeat(row));
        model.put("settings_fields", AgentSettingsForm.fields(settings.result(), testAgent));
        model.put("storage", PageRows.storage(row));
        renderer.render(ctx, 200, "agent", "agents", model);
      }).onFailure(ctx::fail);
    }).onFailure(ctx::fail);
  }
}
