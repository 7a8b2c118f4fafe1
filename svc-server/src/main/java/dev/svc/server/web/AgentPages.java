package dev.svc.server.web;

import dev.svc.server.store.StoredAgent;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.QuickTestStore;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * GET /agents (the list, live through SSE, the Enrol a GPU host card, which carries the CA fingerprint
 * agents pin when the server has one, and the Create Test Agent form) and GET /agents/:id
 * (hardware, heartbeat metrics, the Settings card and, for real agents, the Storage card).
 */
final class AgentPages {

  /** Agents a page shows: most fleets fit on one page; a fleet of thousands is paged. */
  static final int PER_PAGE = 100;

  private final AgentStore agents;
  private final QuickTestStore tests;
  private final String caFingerprint;
  private final PageRenderer renderer;

  AgentPages(AgentStore agents, QuickTestStore tests, String caFingerprint, PageRenderer renderer) {
    this.agents = agents;
    this.tests = tests;
    this.caFingerprint = caFingerprint;
    this.renderer = renderer;
  }

  void list(RoutingContext ctx) {
    Pager pager = Pager.of(ctx, PER_PAGE);
    agents.page(pager.limit(), pager.offset()).compose(page -> tests
        .busyAmong(page.items().stream().map(a -> a.id()).toList()).map(busy -> {
          Set<String> running = new HashSet<>(busy);
          Map<String, Object> model = new HashMap<>();
          model.put("agents", page.items().stream().map(a -> PageRows.agent(a, running.contains(a.id())
              || "running".equals(a.status()))).toList());
          model.put("pager", pager.model(page.total(), "/agents", Map.of()));
          model.put("ca_fingerprint", caFingerprint);
          return model;
        })).onSuccess(model -> renderer.render(ctx, 200, "agents", "agents", model)).onFailure(ctx::fail);
  }

  void detail(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    agents.byId(id).onSuccess(found -> {
      if (found.isEmpty()) {
        renderer.render(ctx, 404, "not_found", "agents", Map.of("what", "agent " + id));
        return;
      }
      StoredAgent row = found.get();
      var active = tests.activeOfAgent(id);
      var settings = agents.settings(id);
      Future.all(active, settings).onSuccess(v -> {
        boolean testAgent = PageRows.isTestAgent(row);
        Map<String, Object> model = new HashMap<>();
        model.put("agent", PageRows.agent(row, !active.result().isEmpty() || "running".equals(row.status())));
        model.put("hardware", PageRows.hardware(row));
        model.put("heartbeat", PageRows.heartbeat(row));
        model.put("settings_fields", AgentSettingsForm.fields(settings.result(), testAgent));
        model.put("storage", PageRows.storage(row));
        renderer.render(ctx, 200, "agent", "agents", model);
      }).onFailure(ctx::fail);
    }).onFailure(ctx::fail);
  }
}
