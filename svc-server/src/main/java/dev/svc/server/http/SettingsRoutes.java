package dev.svc.server.http;

import dev.svc.server.models.CatalogModel;
import io.vertx.core.Vertx;
import dev.svc.server.models.ModelCatalog;
import dev.svc.server.settings.GlobalSettings;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;
import java.util.function.Function;

/** Global settings and the model catalog. */
public final class SettingsRoutes implements ApiArea {

  private final Vertx vertx;
  private final GlobalSettings settings;
  private final Guard guard;
  private final ModelCatalog catalog;
  private final Function<String, Future<?>> resultsDirChanged;

  public SettingsRoutes(Vertx vertx, GlobalSettings settings, Guard guard, Function<String, Future<?>> resultsDirChanged) {
    this.vertx = vertx;
    this.settings = settings;
    this.guard = guard;
    this.catalog = new ModelCatalog(vertx);
    this.resultsDirChanged = resultsDirChanged;
  }

  @Override
  public void mount(Router router, BodyHandler body, BodyHandler largeBody) {
    // credentials before the body: a caller without them is refused before the server reads its body
    Handler<RoutingContext> global = BeforeBody.of(guard.globalFirst());
    router.get("/api/v1/settings").handler(Handlers.async(this::get));
    router.put("/api/v1/settings").handler(global).handler(body).handler(Handlers.async(this::put));
    router.get("/api/v1/models").handler(Handlers.async(this::models));
  }

  private Future<?> get(RoutingContext ctx) {
    guard.global(ctx);
    return settings.toJson().map(json -> {
      Replies.ok(ctx, json);
      return null;
    });
  }

  private Future<?> put(RoutingContext ctx) {
    guard.global(ctx);
    JsonObject body = Body.of(ctx).json();
    return settings.update(body).compose(json -> {
      // A new results directory is indexed before the reply, so its results are listed at once.
      Future<?> indexed = body.containsKey(GlobalSettings.RESULTS_DIR)
          ? resultsDirChanged.apply(json.getJsonObject(GlobalSettings.RESULTS_DIR).getString("value"))
          : Future.succeededFuture();
      return indexed.map(v -> {
        Replies.ok(ctx, json);
        return null;
      });
    });
  }

  private Future<?> models(RoutingContext ctx) {
    guard.global(ctx);
    Pagination page = Pagination.of(ctx);
    String query = ctx.request().getParam("q");
    return settings.effective().compose(s -> catalog.list(s.get(GlobalSettings.MODEL_DIR).value(),
        s.get(GlobalSettings.CATALOG_URL).value())).map(listing -> {
          List<CatalogModel> models = listing.models();
          if (query != null && !query.isBlank()) {
            models = models.stream().filter(m -> m.matches(query)).toList();
          }
          int from = Math.min(page.offset(), models.size());
          int to = Math.min(from + page.perPage(), models.size());
          JsonObject envelope = page.envelope(new JsonArray(models.subList(from, to).stream().map(CatalogModel::toJson).toList()), models.size());
          envelope.put("problems", new JsonArray(listing.problems()));
          Replies.ok(ctx, envelope);
          return null;
        });
  }
}
