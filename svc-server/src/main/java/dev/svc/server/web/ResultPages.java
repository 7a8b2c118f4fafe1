package dev.svc.server.web;

import dev.svc.server.store.StoredAgent;
import dev.svc.server.store.AgentStore;
import io.vertx.core.Vertx;
import dev.svc.server.store.Page;
import dev.svc.server.store.ResultStore;
import dev.svc.server.store.ResultStore.AgentName;
import dev.svc.server.store.StoredResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** GET /results (filters, pages, pick to compare), /results/:id (metrics, charts, formulas), /results/compare. */
final class ResultPages {

  static final int MAX_COMPARE = 20;
  private static final int MAX_SUGGESTIONS = 200;

  private final Vertx vertx;
  private final AgentStore agents;
  private final ResultStore results;
  private final PageRenderer renderer;

  ResultPages(Vertx vertx, AgentStore agents, ResultStore results, PageRenderer renderer) {
    this.vertx = vertx;
    this.agents = agents;
    this.results = results;
    this.renderer = renderer;
  }

  void list(RoutingContext ctx) {
    ResultListQuery q = ResultListQuery.of(ctx.queryParams());
    Future<Page<StoredResult>> page = q.errors().isEmpty()
        ? results.list(q.filter("model"), q.filter("engine"), q.filter("suite_name"), q.filter("agent_id"),
            q.since(), q.until(), q.perPage(), q.offset())
        : Future.succeededFuture(new Page<>(List.of(), 0));
    // the agents that have results (a filter on any other finds nothing): names, not whole rows
    Future<List<AgentName>> agents = results.agentsWithResults();
    Future<List<String>> models = results.distinct(ResultStore.Facet.MODEL, MAX_SUGGESTIONS);
    Future<List<String>> engines = results.distinct(ResultStore.Facet.ENGINE, MAX_SUGGESTIONS);
    Future<List<String>> suites = results.distinct(ResultStore.Facet.SUITE, MAX_SUGGESTIONS);
    Future.all(page, agents, models, engines, suites).onSuccess(all -> {
      Map<String, String> agentNames = agents.result().stream()
          .collect(Collectors.toMap(AgentName::id, AgentName::label, (a, b) -> a));
      List<Map<String, Object>> rows = new ArrayList<>();
      List<String> ids = new ArrayList<>();
      for (StoredResult row : page.result().items()) {
        ResultDocument doc = ResultDocument.summaryOf(row);
        Map<String, Object> r = ResultDetailView.summary(doc);
        r.put("headline", PageRows.headline(doc.data()));
        r.put("agent", doc.agentId() == null ? "" : agentNames.getOrDefault(doc.agentId(), doc.agentId()));
        rows.add(r);
        ids.add(doc.id());
      }
      long total = page.result().total();
      long pages = total == 0 ? 0 : (total + q.perPage() - 1) / q.perPage();
      Map<String, Object> model = new HashMap<>();
      model.put("results", rows);
      model.put("filters", q.raw());
      model.put("errors", q.errors());
      model.put("agents", agents.result().stream().map(a -> Map.of("id", a.id(), "name", a.label())).toList());
      model.put("models", models.result());
      model.put("engines", engines.result());
      model.put("suites", suites.result());
      model.put("total", total);
      model.put("page", q.page());
      model.put("pages", pages);
      model.put("prev_query", q.page() > 1 ? q.query(q.page() - 1) : null);
      model.put("next_query", q.page() < pages ? q.query(q.page() + 1) : null);
      model.put("page_ids", String.join(",", ids));
      renderer.render(ctx, q.errors().isEmpty() ? 200 : 400, "results", "results", model);
    }).onFailure(ctx::fail);
  }

  void detail(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    results.byId(id).compose(found -> {
      if (found.isEmpty()) {
        return Future.succeededFuture(Optional.<Map<String, Object>>empty());
      }
      return vertx.executeBlocking(() -> ResultDocument.of(found.get()), false).compose(doc -> {
        Future<Optional<StoredAgent>> agent = doc.agentId() == null ? Future.succeededFuture(Optional.empty())
            : agents.byIdIncludingDeleted(doc.agentId());
        return agent.map(a -> Optional.of(ResultDetailView.model(doc, a.orElse(null))));
      });
    }).onSuccess(model -> {
      if (model.isEmpty()) {
        renderer.render(ctx, 404, "not_found", "results", Map.of("what", "result " + id));
      } else {
        renderer.render(ctx, 200, "result", "results", model.get());
      }
    }).onFailure(ctx::fail);
  }

  /** GET /results/compare.csv?ids=…: the compare table's rows as CSV, with intervals and the noise verdict. */
  void compareCsv(RoutingContext ctx) {
    List<String> ids = requestedIds(ctx);
    if (ids.size() < 2 || ids.size() > MAX_COMPARE) {
      ctx.response().setStatusCode(400).putHeader("Content-Type", "text/plain; charset=utf-8")
          .end(ids.size() < 2 ? "Pick at least two results to compare." : "At most " + MAX_COMPARE
              + " results can be compared at once.");
      return;
    }
    load(ids).onSuccess(loaded -> {
      if (!loaded.missing().isEmpty()) {
        ctx.response().setStatusCode(404).putHeader("Content-Type", "text/plain; charset=utf-8")
            .end("No result with id " + String.join(", ", loaded.missing()) + ". It may have been deleted.");
        return;
      }
      ctx.response().putHeader("Content-Type", "text/csv; charset=utf-8")
          .putHeader("Content-Disposition", "attachment; filename=\"svc-compare-" + ids.size() + ".csv\"")
          .end(CompareTable.csv(loaded.found()));
    }).onFailure(ctx::fail);
  }

  void compare(RoutingContext ctx) {
    List<String> ids = requestedIds(ctx);
    if (ids.size() < 2 || ids.size() > MAX_COMPARE) {
      String message = ids.size() < 2 ? "Pick at least two results to compare (tick them in the results list)."
          : "At most " + MAX_COMPARE + " results can be compared at once.";
      renderer.render(ctx, 400, "results_compare", "results", Map.of("error", message, "ids", ids));
      return;
    }
    load(ids).onSuccess(loaded -> {
      if (!loaded.missing().isEmpty()) {
        renderer.render(ctx, 404, "results_compare", "results", Map.of("ids", ids,
            "error", "No result with id " + String.join(", ", loaded.missing()) + ". It may have been deleted."));
        return;
      }
      renderer.render(ctx, 200, "results_compare", "results", compareModel(loaded.found()));
    }).onFailure(ctx::fail);
  }

  private static Map<String, Object> compareModel(List<ResultDocument> results) {
    List<String> labels = new ArrayList<>();
    List<Map<String, Object>> columns = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      ResultDocument doc = results.get(i);
      String label = "#" + (i + 1) + " " + doc.shortLabel();
      labels.add(label);
      Map<String, Object> column = ResultDetailView.summary(doc);
      column.put("label", label);
      column.put("number", i + 1);
      columns.add(column);
    }
    List<Map<String, Object>> rows = CompareTable.rows(results);
    Set<String> shownMetrics = new LinkedHashSet<>(CompareTable.shownKeys(rows));
    Set<String> shownStats = new LinkedHashSet<>(CompareTable.shownStatistics(rows));
    List<Map<String, Object>> sweeps = sweeps(results, columns, shownMetrics, shownStats);
    JsonObject charts = ResultCharts.compare(results, labels);
    Map<String, Object> model = new HashMap<>();
    model.put("columns", columns);
    model.put("rows", rows);
    model.put("sweeps", sweeps);
    model.put("ids", results.stream().map(ResultDocument::id).collect(Collectors.joining(",")));
    model.put("charts", ResultCharts.present(charts));
    model.put("chart_data", ScriptJson.encode(charts));
    model.put("formulas", FormulaList.of(shownMetrics, shownStats));
    return model;
  }

  /** Each swept benchmark of each result, in the results' order: the result's column, the benchmark, its compact table. */
  private static List<Map<String, Object>> sweeps(List<ResultDocument> results, List<Map<String, Object>> columns,
      Set<String> shownMetrics, Set<String> shownStats) {
    List<Map<String, Object>> sweeps = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      for (BenchmarkMetrics b : results.get(i).benchmarks()) {
        if (b.sweep() != null) {
          Map<String, Object> sweep = new HashMap<>(columns.get(i));
          sweep.put("benchmark", b.name());
          sweep.put("sweep", SweepTable.compact(b.sweep(), shownMetrics, shownStats));
          sweeps.add(sweep);
        }
      }
    }
    return sweeps;
  }

  /** Results found for the ids, in the order asked, and the ids not found. */
  record Loaded(List<ResultDocument> found, List<String> missing) {
  }

  /**
   * The results of these ids for a comparison, in the order asked: each whole document is read and
   * parsed (on a worker) one at a time and kept only as its benchmarks ({@link ResultDocument#compact}).
   */
  Future<Loaded> load(List<String> ids) {
    return results.summaries(ids).compose(rows -> {
      Set<String> known = rows.stream().map(StoredResult::id).collect(Collectors.toSet());
      List<String> missing = ids.stream().filter(id -> !known.contains(id)).toList();
      if (!missing.isEmpty()) {
        return Future.succeededFuture(new Loaded(List.of(), missing));
      }
      return loadEach(ids, 0, new ArrayList<>());
    });
  }

  private Future<Loaded> loadEach(List<String> ids, int next, List<ResultDocument> found) {
    if (next == ids.size()) {
      return Future.succeededFuture(new Loaded(found, List.of()));
    }
    String id = ids.get(next);
    return results.byId(id).compose(row -> {
      if (row.isEmpty()) { // deleted meanwhile
        return Future.succeededFuture(new Loaded(List.of(), List.of(id)));
      }
      return vertx.executeBlocking(() -> ResultDocument.of(row.get()).compact(), false).compose(doc -> {
        found.add(doc);
        return loadEach(ids, next + 1, found);
      });
    });
  }

  /** The ids of {@code ?ids=a,b} and of {@code ?compare=a&compare=b} (the list form without script), each once. */
  static List<String> requestedIds(RoutingContext ctx) {
    LinkedHashSet<String> ids = new LinkedHashSet<>();
    for (String value : ctx.queryParams().getAll("ids")) {
      for (String part : value.split(",")) {
        if (!part.isBlank()) {
          ids.add(part.trim());
        }
      }
    }
    ctx.queryParams().getAll("compare").stream().filter(v -> !v.isBlank()).map(String::trim).forEach(ids::add);
    return new ArrayList<>(ids);
  }
}
