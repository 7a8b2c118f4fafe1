package dev.svc.server.web;

import dev.svc.server.store.ResultStore;
import io.vertx.core.Vertx;
import dev.svc.server.store.StoredResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Results as downloads, outside /api so the API document stays as it is: one result at
 * /results/:id/export.{json,csv}; several at /results/export.{json,csv}?ids=a,b (a comparison)
 * or with the list's filters and page (what /results shows). Whole documents are read, parsed
 * (on a worker) and written one at a time.
 */
final class ResultExports {

  static final int MAX_EXPORT = ResultListQuery.MAX_PER_PAGE;

  private enum Format { JSON, CSV }

  private final Vertx vertx;
  private final ResultStore results;
  private final PageRenderer renderer;

  ResultExports(Vertx vertx, ResultStore results, PageRenderer renderer) {
    this.vertx = vertx;
    this.results = results;
    this.renderer = renderer;
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
    results.byId(id).compose(found -> found.isEmpty() ? Future.succeededFuture(Optional.<String>empty())
        : vertx.executeBlocking(() -> {
          ResultDocument doc = ResultDocument.of(found.get());
          return Optional.of(format == Format.JSON ? json(doc).encodePrettily() : ResultCsv.of(List.of(doc)));
        }, false)).onSuccess(text -> {
          if (text.isEmpty()) {
            renderer.render(ctx, 404, "not_found", "results", Map.of("what", "result " + id));
            return;
          }
          String name = "svc-result-" + id.replaceAll("[^A-Za-z0-9_-]", "_");
          if (format == Format.JSON) {
            send(ctx, name + ".json", "application/json", text.get());
          } else {
            send(ctx, name + ".csv", "text/csv; charset=utf-8", text.get());
          }
        }).onFailure(ctx::fail);
  }

  private void many(RoutingContext ctx, Format format) {
    List<String> ids = ResultPages.requestedIds(ctx);
    Future<List<String>> selected;
    if (!ids.isEmpty()) {
      if (ids.size() > MAX_EXPORT) {
        message(ctx, 400, "At most " + MAX_EXPORT + " results can be exported at once.");
        return;
      }
      selected = results.summaries(ids).compose(rows -> {
        Set<String> known = rows.stream().map(StoredResult::id).collect(Collectors.toSet());
        List<String> missing = ids.stream().filter(id -> !known.contains(id)).toList();
        return missing.isEmpty() ? Future.succeededFuture(ids) : Future.failedFuture(new MissingResults(missing));
      });
    } else {
      ResultListQuery q = ResultListQuery.of(ctx.queryParams());
      if (!q.errors().isEmpty()) {
        message(ctx, 400, String.join(" ", q.errors()));
        return;
      }
      // the list's page selects the results (summary columns only); their documents follow one by one
      selected = results.list(q.filter("model"), q.filter("engine"), q.filter("suite_name"), q.filter("agent_id"),
          q.since(), q.until(), q.perPage(), q.offset()).map(p -> p.items().stream().map(StoredResult::id).toList());
    }
    selected.onSuccess(list -> stream(ctx, format, list)).onFailure(err -> {
      if (err instanceof MissingResults missing) {
        message(ctx, 404, "No result with id " + String.join(", ", missing.ids) + ". It may have been deleted.");
      } else {
        ctx.fail(err);
      }
    });
  }

  /**
   * Writes the export while reading it: one whole document at a time is read, parsed on a worker and
   * written, and the next waits until the client has taken the last (at most one document in memory).
   */
  private void stream(RoutingContext ctx, Format format, List<String> ids) {
    String name = "svc-results-" + ids.size();
    HttpServerResponse response = ctx.response();
    response.setChunked(true)
        .putHeader("Content-Type", format == Format.JSON ? "application/json" : "text/csv; charset=utf-8")
        .putHeader("Content-Disposition", "attachment; filename=\"" + name + (format == Format.JSON ? ".json" : ".csv")
            + "\"")
        .putHeader("Cache-Control", "no-store");
    response.write(format == Format.JSON
        ? "{\n  \"ids\" : " + new JsonArray(ids).encode() + ",\n  \"results\" : [" : ResultCsv.header());
    streamEach(response, format, ids, 0).onSuccess(v -> response.end(format == Format.JSON ? " ]\n}" : ""))
        .onFailure(err -> {
          if (!response.closed()) {
            response.reset(); // the status is sent already: an incomplete download must not look complete
          }
        });
  }

  private Future<Void> streamEach(HttpServerResponse response, Format format, List<String> ids, int next) {
    if (next == ids.size() || response.closed()) {
      return Future.succeededFuture();
    }
    String id = ids.get(next);
    return results.byId(id)
        .compose(row -> vertx.executeBlocking(() -> {
          if (row.isEmpty()) { // deleted meanwhile: its place in the JSON stays, empty
            return format == Format.JSON ? (next > 0 ? "," : "") + " null" : "";
          }
          ResultDocument doc = ResultDocument.of(row.get());
          return format == Format.JSON ? (next > 0 ? "," : "") + " " + json(doc).encodePrettily()
              : ResultCsv.rowsOf(doc);
        }, false))
        .compose(text -> response.write(text).compose(v -> drained(response)))
        .compose(v -> streamEach(response, format, ids, next + 1));
  }

  private static Future<Void> drained(HttpServerResponse response) {
    if (!response.writeQueueFull()) {
      return Future.succeededFuture();
    }
    Promise<Void> drained = Promise.promise();
    response.drainHandler(v -> drained.tryComplete());
    response.closeHandler(v -> drained.tryComplete());
    return drained.future();
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
