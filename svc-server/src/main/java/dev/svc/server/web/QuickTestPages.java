package dev.svc.server.web;

import dev.svc.engines.EngineCatalog;
import dev.svc.server.settings.GlobalSettings;
import dev.svc.server.store.AgentStore;
import dev.svc.server.store.EventStore;
import dev.svc.server.store.QuickTestStore;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Vertx;
import dev.svc.core.domain.Benchmarks;
import dev.svc.core.domain.QuickTestStatus;
import dev.svc.server.models.ModelCatalog;
import dev.svc.server.store.StoredQuickTest;
import dev.svc.server.store.StoredResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** GET /quicktest (history with status chips), /quicktest/new (the launch form) and /quicktest/:id (live detail). */
final class QuickTestPages {

  static final List<String> CHIPS = List.of("queued", "dispatched", "running", "completed", "failed");

  private final Vertx vertx;
  private final AgentStore agents;
  private final QuickTestStore tests;
  private final ResultStore results;
  private final EventStore eventStore;
  private final GlobalSettings settings;
  private final PageRenderer renderer;
  private final CatalogModels models;
  private final EngineChoices engines;

  QuickTestPages(Vertx vertx, AgentStore agents, QuickTestStore tests, ResultStore results, EventStore eventStore, GlobalSettings settings, EngineCatalog engines, PageRenderer renderer) {
    this.vertx = vertx;
    this.agents = agents;
    this.tests = tests;
    this.results = results;
    this.eventStore = eventStore;
    this.settings = settings;
    this.renderer = renderer;
    this.models = new CatalogModels(vertx, settings);
    this.engines = new EngineChoices(engines);
  }

  void list(RoutingContext ctx) {
    String asked = QueryParams.get(ctx, "status");
    String status = QuickTestStatus.parse(asked).map(QuickTestStatus::wireName).orElse("");
    Pager pager = Pager.of(ctx);
    tests.list(status.isEmpty() ? null : status, null, null, null, null, pager.limit(), pager.offset())
        .onSuccess(page -> {
          Map<String, Object> model = new HashMap<>();
          model.put("tests", page.items().stream().map(RunRows::quickTest).toList());
          model.put("chips", StatusChips.of(CHIPS, status, "/quicktest"));
          model.put("status", status);
          model.put("pager", pager.model(page.total(), "/quicktest", Map.of("status", status)));
          renderer.render(ctx, 200, "quicktests", "quicktest", model);
        }).onFailure(ctx::fail);
  }

  void newForm(RoutingContext ctx) {
    String wanted = QueryParams.get(ctx, "agent_id");
    Future.all(agents.all(), models.load()).onSuccess(all -> {
      List<Map<String, Object>> agents = EngineChoices.agents(all.resultAt(0));
      Map<String, Object> selected = agents.stream().filter(a -> a.get("id").equals(wanted)).findFirst()
          .orElse(agents.isEmpty() ? null : agents.get(0));
      ModelCatalog.Listing listing = all.resultAt(1);
      Map<String, Object> model = new HashMap<>();
      model.put("agents", agents);
      model.put("selected_agent", selected == null ? "" : selected.get("id"));
      model.put("engines", engines.forArch(selected == null ? null : (String) selected.get("arch")));
      model.put("models", CatalogModels.rows(listing));
      model.put("model_problems", listing.problems());
      model.put("benchmarks", Benchmarks.all());
      model.put("compat_json", new JsonObject().put("format_verdicts", engines.formatVerdicts()).encode());
      renderer.render(ctx, 200, "quicktest_new", "quicktest", model);
    }).onFailure(ctx::fail);
  }

  void detail(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    tests.byId(id).compose(found -> {
      if (found.isEmpty()) {
        renderer.render(ctx, 404, "not_found", "quicktest", Map.of("what", "quick test " + id));
        return Future.succeededFuture();
      }
      StoredQuickTest test = found.get();
      if (!RunRows.isActive(test.status())) {
        return finished(ctx, test);
      }
      return LogLines.fromEvents(eventStore, id).compose(log -> {
        if (log.lastStatus() != null && !RunRows.isActive(log.lastStatus())) {
          // it finished while we read: show it as finished, with its stored lines and result
          return tests.byId(id).compose(again -> finished(ctx, again.orElse(test)));
        }
        Map<String, Object> view = RunRows.quickTest(test);
        if (log.lastStatus() != null) {
          view.put("status", log.lastStatus());
        }
        return render(ctx, view, log, true);
      });
    }).onFailure(ctx::fail);
  }

  private Future<Void> finished(RoutingContext ctx, StoredQuickTest test) {
    return eventStore.lines(test.id(), 0, LogLines.LIMIT)
        .compose(rows -> render(ctx, RunRows.quickTest(test), LogLines.stored(rows), false));
  }

  private Future<Void> render(RoutingContext ctx, Map<String, Object> test, LogLines log, boolean live) {
    String resultId = (String) test.get("result_id");
    Future<Optional<StoredResult>> result = resultId == null ? Future.succeededFuture(Optional.empty())
        : results.byId(resultId);
    return result.map(r -> {
      Map<String, Object> model = new HashMap<>();
      model.put("test", test);
      model.put("lines", log.lines());
      model.put("live", live);
      model.put("last_event_id", log.lastEventId());
      model.put("metrics", r.map(row -> KeyMetrics.of(row.data())).orElse(List.of()));
      renderer.render(ctx, 200, "quicktest", "quicktest", model);
      return null;
    });
  }
}
