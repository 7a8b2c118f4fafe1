package dev.svc.server.http;

import dev.svc.core.Timestamps;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Results: list with filters, detail, delete, compare. */
final class ResultRoutes {

  static final int MAX_COMPARE = 20;

  private final ApiContext api;

  ResultRoutes(ApiContext api) {
    this.api = api;
  }

  void mount(Router router, BodyHandler body) {
    router.get("/api/v1/results").handler(Handlers.async(this::list));
    router.post("/api/v1/results/compare").handler(body).handler(Handlers.async(this::compare));
    router.get("/api/v1/results/:id").handler(Handlers.async(this::get));
    router.delete("/api/v1/results/:id").handler(Handlers.async(this::delete));
  }

  private Future<?> list(RoutingContext ctx) {
    api.guard().global(ctx);
    Pagination page = Pagination.of(ctx);
    String since = timeParam(ctx, "since");
    String until = timeParam(ctx, "until");
    return api.results().list(ctx.request().getParam("model"), ctx.request().getParam("engine"),
        ctx.request().getParam("suite_name"), ctx.request().getParam("agent_id"), since, until,
        page.perPage(), page.offset()).map(p -> {
          JsonArray items = new JsonArray();
          p.items().forEach(row -> items.add(Views.result(row)));
          Replies.ok(ctx, page.envelope(items, p.total()));
          return null;
        });
  }

  private static String timeParam(RoutingContext ctx, String name) {
    String raw = ctx.request().getParam(name);
    if (raw == null || raw.isEmpty()) {
      return null;
    }
    return Timestamps.normalize(raw).orElseThrow(() ->
        ApiError.badRequest("Query parameter '" + name + "' must be an ISO-8601 timestamp such as 2026-11-22T10:00:00.000Z"));
  }

  private Future<JsonObject> requireResult(String id) {
    return api.results().byId(id).map(r -> r.orElseThrow(() -> ApiError.notFound("Result '" + id + "' not found")));
  }

  private Future<?> get(RoutingContext ctx) {
    api.guard().global(ctx);
    return requireResult(ctx.pathParam("id")).map(row -> {
      Replies.ok(ctx, Views.result(row));
      return null;
    });
  }

  private Future<?> delete(RoutingContext ctx) {
    api.guard().global(ctx);
    String id = ctx.pathParam("id");
    return api.results().delete(id).map(deleted -> {
      if (!deleted) {
        throw ApiError.notFound("Result '" + id + "' not found");
      }
      Replies.ok(ctx, new JsonObject().put("deleted", true));
      return null;
    });
  }

  private Future<?> compare(RoutingContext ctx) {
    api.guard().global(ctx);
    List<String> ids = Body.of(ctx).optStringList("ids");
    if (ids == null || ids.size() < 2) {
      throw ApiError.badRequest("Field 'ids' must list at least two result ids");
    }
    if (ids.size() > MAX_COMPARE) {
      throw ApiError.badRequest("At most " + MAX_COMPARE + " results can be compared");
    }
    List<String> unique = new ArrayList<>(new LinkedHashSet<>(ids));
    return api.results().byIds(unique).map(rows -> {
      Map<String, JsonObject> byId = new TreeMap<>();
      rows.forEach(r -> byId.put(r.getString("id"), Views.result(r)));
      for (String id : unique) {
        if (!byId.containsKey(id)) {
          throw ApiError.notFound("Result '" + id + "' not found");
        }
      }
      JsonArray items = new JsonArray();
      List<Map<String, Double>> flat = new ArrayList<>();
      for (String id : unique) {
        items.add(byId.get(id));
        flat.add(MetricFlattener.flatten(byId.get(id)));
      }
      Set<String> common = new java.util.TreeSet<>(flat.get(0).keySet());
      flat.forEach(m -> common.retainAll(m.keySet()));
      JsonObject table = new JsonObject();
      for (String metric : common) {
        JsonArray values = new JsonArray();
        flat.forEach(m -> values.add(m.get(metric)));
        table.put(metric, values);
      }
      Replies.ok(ctx, new JsonObject().put("ids", new JsonArray(unique)).put("items", items).put("metrics", table));
      return null;
    });
  }
}
