package dev.svc.server.web;

import dev.svc.server.http.ApiContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;

/**
 * Results as downloads, outside /api so the API document stays as it is: one result at
 * /results/:id/export.{json,csv}; several at /results/export.{json,csv}?ids=a,b (a comparison)
 * or with the list's filters and page (what /results shows).
 */
final class ResultExports {

  static final int MAX_EXPORT = ResultListQuery.MAX_PER_PAGE;

  private enum Format { JSON, CSV }

  private final ApiContext api;
  private final PageRenderer renderer;
  private final ResultPages pages;

  ResultExports(ApiContext api, PageRenderer renderer, ResultPages pages) {
    this.api = api;
    this.renderer = renderer;
    this.pages = pages;
  }

  void oneJson(RoutingContext ctx) {
    one(ctx, Format.JSON);
  }

  void oneCsv(RoutingContext ctx) {
    one(ctx, Format.CSV);
  }

  void manyJson(RoutingContext ctx) {
    many(ctx, Format.JSON);
  }

  void manyCsv(RoutingContext ctx) {
    many(ctx, Format.CSV);
  }

  private void one(RoutingContext ctx, Format format) {
    String id = ctx.pathParam("id");
    api.results().byId(id).onSuccess(found -> {
      if (found.isEmpty()) {
        renderer.render(ctx, 404, "not_found", "results", Map.of("what", "result " + id));
        return;
      }
      ResultDocument doc = ResultDocument.of(found.get());
      String name = "svc-result-" + id.replaceAll("[^A-Za-z0-9_-]", "_");
      if (format == Format.JSON) {
        send(ctx, name + ".json", "application/json", json(doc).encodePrettily());
      } else {
        send(ctx, name + ".csv", "text/csv; charset=utf-8", ResultCsv.of(List.of(doc)));
      }
    }).onFailure(ctx::fail);
  }

  private void many(RoutingContext ctx, Format format) {
    List<String> ids = ResultPages.requestedIds(ctx);
    Future<List<ResultDocument>> selected;
    if (!ids.isEmpty()) {
      if (ids.size() > MAX_EXPORT) {
        message(ctx, 400, "At most " + MAX_EXPORT + " results can be exported at once.");
        return;
      }
      selected = pages.load(ids).compose(loaded -> loaded.missing().isEmpty() ? Future.succeededFuture(loaded.found())
          : Future.failedFuture(new MissingResults(loaded.missing())));
    } else {
      ResultListQuery q = ResultListQuery.of(ctx.queryParams());
      if (!q.errors().isEmpty()) {
        message(ctx, 400, String.join(" ", q.errors()));
        return;
      }
      selected = api.results().list(q.filter("model"), q.filter("engine"), q.filter("suite_name"), q.filter("agent_id"),
          q.since(), q.until(), q.perPage(), q.offset()).map(p -> p.items().stream().map(ResultDocument::of).toList());
    }
    selected.onSuccess(docs -> {
      String name = "svc-results-" + docs.size();
      if (format == Format.JSON) {
        JsonArray items = new JsonArray();
        docs.forEach(d -> items.add(json(d)));
        JsonObject body = new JsonObject().put("ids", new JsonArray(docs.stream().map(ResultDocument::id).toList()))
            .put("results", items);
        send(ctx, name + ".json", "application/json", body.encodePrettily());
      } else {
        send(ctx, name + ".csv", "text/csv; charset=utf-8", ResultCsv.of(docs));
      }
    }).onFailure(err -> {
      if (err instanceof MissingResults missing) {
        message(ctx, 404, "No result with id " + String.join(", ", missing.ids) + ". It may have been deleted.");
      } else {
        ctx.fail(err);
      }
    });
  }

  /** One result as exported: its ids and the stored metrics.json unchanged (null when unreadable). */
  static JsonObject json(ResultDocument doc) {
    return new JsonObject().put("id", doc.id()).put("test_id", doc.testId()).put("agent_id", doc.agentId())
        .put("source_path", doc.sourcePath()).put("data", doc.readable() ? doc.data() : null);
  }

  private static void send(RoutingContext ctx, String filename, String type, String body) {
    ctx.response().putHeader("Content-Type", type)
        .putHeader("Content-Disposition", "attachment; filename=\"" + filename + "\"")
        .putHeader("Cache-Control", "no-store").end(body);
  }

  private void message(RoutingContext ctx, int status, String text) {
    renderer.render(ctx, status, "results_message", "results", Map.of("message", text));
  }

  /** Ids of an export that name no result. */
  private static final class MissingResults extends RuntimeException {
    private final List<String> ids;

    MissingResults(List<String> ids) {
      super("Unknown result ids", null, false, false);
      this.ids = ids;
    }
  }
}
