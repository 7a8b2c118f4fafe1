package dev.svc.server.web;

import dev.svc.server.models.CatalogModel;
import io.vertx.core.Vertx;
import dev.svc.server.models.ModelCatalog;
import dev.svc.server.settings.GlobalSettings;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GET /models: the catalog (manifest.json of the model directory and of the catalog service), filtered
 * by {@code q} and paginated, with the problems met while reading it. While no catalog URL is set the
 * page offers a form that sets it.
 */
final class ModelsPage {

  static final int PER_PAGE = 50;

  private final Vertx vertx;
  private final GlobalSettings settings;
  private final PageRenderer renderer;
  private final ModelCatalog catalog;

  ModelsPage(Vertx vertx, GlobalSettings settings, PageRenderer renderer) {
    this.vertx = vertx;
    this.settings = settings;
    this.renderer = renderer;
    this.catalog = new ModelCatalog(vertx);
  }

  void handle(RoutingContext ctx) {
    String query = param(ctx, "q").trim();
    int page = pageOf(param(ctx, "page"));
    settings.effective().compose(settings -> {
      GlobalSettings.Value modelDir = settings.get(GlobalSettings.MODEL_DIR);
      GlobalSettings.Value catalogUrl = settings.get(GlobalSettings.CATALOG_URL);
      return catalog.list(modelDir.value(), catalogUrl.value()).map(listing -> {
        List<CatalogModel> matching = listing.models().stream().filter(m -> m.matches(query)).toList();
        int pages = Math.max(1, (matching.size() + PER_PAGE - 1) / PER_PAGE);
        int current = Math.min(page, pages);
        int from = (current - 1) * PER_PAGE;
        int to = Math.min(from + PER_PAGE, matching.size());
        Map<String, Object> model = new HashMap<>();
        model.put("models", matching.subList(from, to).stream().map(PageRows::model).toList());
        model.put("total", matching.size());
        model.put("all_total", listing.models().size());
        model.put("problems", listing.problems());
        model.put("q", query);
        model.put("page", current);
        model.put("pages", pages);
        model.put("prev_page", current > 1 ? current - 1 : 0);
        model.put("next_page", current < pages ? current + 1 : 0);
        model.put("model_dir", modelDir.value() == null ? "" : modelDir.value());
        model.put("model_dir_source", source(modelDir));
        model.put("catalog_url", catalogUrl.value() == null ? "" : catalogUrl.value());
        model.put("catalog_url_source", source(catalogUrl));
        return model;
      });
    }).onSuccess(model -> renderer.render(ctx, 200, "models", "models", model)).onFailure(ctx::fail);
  }

  private static String source(GlobalSettings.Value value) {
    return value.source().name().toLowerCase(java.util.Locale.ROOT);
  }

  /** A query parameter, "" when absent or when the query string is not decodable (a page never fails on it). */
  private static String param(RoutingContext ctx, String name) {
    try {
      return ctx.request().getParam(name, "");
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  /** The requested page; anything that is not a positive number is the first page. */
  private static int pageOf(String raw) {
    return raw.matches("\\d{1,6}") ? Math.max(1, Integer.parseInt(raw)) : 1;
  }
}
