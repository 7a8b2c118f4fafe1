package dev.svc.server.http;

import dev.svc.server.events.EventLog;
import dev.svc.server.events.EventLog.Written;
import dev.svc.server.store.ResultStore;
import io.vertx.core.Vertx;
import dev.svc.core.Timestamps;
import dev.svc.core.protocol.Fields;
import dev.svc.server.store.StoredResult;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Results: list with filters (summaries: {@link #listItem}), detail (the whole document), delete, compare
 * (summaries and the table of common metrics). Whole documents are read one at a time.
 */
public final class ResultRoutes implements ApiArea {

  static final int MAX_COMPARE = 20;

  private final Vertx vertx;
  private final ResultStore results;
  private final Guard guard;
  private final EventLog events;

  public ResultRoutes(Vertx vertx, ResultStore results, Guard guard, EventLog events) {
    this.vertx = vertx;
    this.results = results;
    this.guard = guard;
    this.events = events;
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
    // credentials before the body: a caller without them is refused before the server reads its body
    Handler<RoutingContext> global = BeforeBody.of(guard.globalFirst());
    router.get("/api/v1/results").handler(Handlers.async(this::list));
    router.post("/api/v1/results/compare").handler(global).handler(body).handler(Handlers.async(this::compare));
    router.get("/api/v1/results/:id").handler(Handlers.async(this::get));
    router.delete("/api/v1/results/:id").handler(Handlers.async(this::delete));
  }

  private Future<?> list(RoutingContext ctx) {
    guard.global(ctx);
    Pagination page = Pagination.withCursor(ctx);
    String since = timeParam(ctx, "since");
    String until = timeParam(ctx, "until");
    return results.list(ctx.request().getParam("model"), ctx.request().getParam("engine"),
        ctx.request().getParam("suite_name"), ctx.request().getParam("agent_id"), since, until,
        page.perPage(), page.offset(), page.cursor()).map(p -> {
          JsonArray items = new JsonArray();
          p.items().forEach(row -> items.add(listItem(row)));
          Replies.ok(ctx, page.envelope(items, p.total(), p.next()));
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

  private Future<StoredResult> requireResult(String id) {
    return results.byId(id).map(r -> r.orElseThrow(() -> ApiError.notFound("Result '" + id + "' not found")));
  }

  private Future<?> get(RoutingContext ctx) {
    guard.global(ctx);
    // a document can be many megabytes: parsed on a worker
    return requireResult(ctx.pathParam("id")).compose(row -> vertx.executeBlocking(() -> Views.result(row), false))
        .map(result -> {
          Replies.ok(ctx, result);
          return null;
        });
  }

  private Future<?> delete(RoutingContext ctx) {
    guard.global(ctx);
    String id = ctx.pathParam("id");
    return events.write(conn -> results.delete(conn, id).map(deleted -> Written.of(deleted))).map(deleted -> {
      if (!deleted) {
        throw ApiError.notFound("Result '" + id + "' not found");
      }
      Replies.ok(ctx, new JsonObject().put("deleted", true));
      return null;
    });
  }

  private Future<?> compare(RoutingContext ctx) {
    guard.global(ctx);
    List<String> ids = Body.of(ctx).optStringList("ids");
    if (ids == null || ids.size() < 2) {
      throw ApiError.badRequest("Field 'ids' must list at least two result ids");
    }
    if (ids.size() > MAX_COMPARE) {
      throw ApiError.badRequest("At most " + MAX_COMPARE + " results can be compared");
    }
    List<String> unique = new ArrayList<>(new LinkedHashSet<>(ids));
    return results.summaries(unique).compose(rows -> {
      Map<String, JsonObject> byId = new TreeMap<>();
      rows.forEach(r -> byId.put(r.id(), listItem(r)));
      for (String id : unique) {
        if (!byId.containsKey(id)) {
          throw ApiError.notFound("Result '" + id + "' not found");
        }
      }
      return flattenEach(unique, 0, new ArrayList<>()).map(flat -> {
        JsonArray items = new JsonArray();
        unique.forEach(id -> items.add(byId.get(id)));
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
    });
  }

  /** The flattened metrics of each result, reading one whole document at a time and parsing it on a worker. */
  private Future<List<Map<String, Double>>> flattenEach(List<String> ids, int next, List<Map<String, Double>> out) {
    if (next == ids.size()) {
      return Future.succeededFuture(out);
    }
    return results.byId(ids.get(next))
        .compose(row -> vertx.executeBlocking(() -> {
          JsonObject data = row.map(StoredResult::dataObject).orElse(null);
          return MetricFlattener.flatten(data == null ? new JsonObject() : data);
        }, false))
        .compose(flat -> {
          out.add(flat);
          return flattenEach(ids, next + 1, out);
        });
  }

  /**
   * A result as lists show it: its ids, the indexed fields and the stored {@link dev.svc.server.results.ResultSummary}
   * (headline metrics per benchmark, in the shape of a metrics.json); never the whole document.
   */
  static JsonObject listItem(StoredResult row) {
    JsonObject out = new JsonObject().put("id", row.id());
    Fields.putIfKnown(out, "test_id", row.testId());
    Fields.putIfKnown(out, "agent_id", row.agentId());
    Fields.putIfKnown(out, "source_path", row.sourcePath());
    out.put("indexed_at", row.createdAt())
        .put("model", row.model())
        .put("engine", row.engine())
        .put("suite_name", row.suiteName())
        .put("timestamp", row.timestamp())
        .put("passed", row.passed());
    JsonObject summary = row.summaryObject();
    if (summary == null) { // stored before summaries; the housekeeping verticle fills it in shortly
      return out.put("readable", true).put("results", new JsonArray());
    }
    out.put("readable", !Boolean.FALSE.equals(summary.remove("readable")));
    return out.mergeIn(summary);
  }
}
