package dev.svc.server.http;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** The one pagination envelope of every list endpoint: page ≥ 1, per_page 1..200 (default 25). */
public final class Pagination {

  public static final int DEFAULT_PER_PAGE = 25;
  public static final int MAX_PER_PAGE = 200;

  private final int page;
  private final int perPage;

  public Pagination(int page, int perPage) {
    this.page = page;
    this.perPage = perPage;
  }

  public static Pagination of(RoutingContext ctx) {
    return new Pagination(param(ctx, "page", 1, 1, 1_000_000), param(ctx, "per_page", DEFAULT_PER_PAGE, 1, MAX_PER_PAGE));
  }

  private static int param(RoutingContext ctx, String name, int fallback, int min, int max) {
    String raw = ctx.request().getParam(name);
    if (raw == null || raw.isEmpty()) {
      return fallback;
    }
    if (!raw.matches("-?\\d{1,9}")) {
      throw ApiError.badRequest("Query parameter '" + name + "' must be an integer");
    }
    int value = Integer.parseInt(raw);
    if (value < min || value > max) {
      throw ApiError.badRequest("Query parameter '" + name + "' must be between " + min + " and " + max);
    }
    return value;
  }

  /** The {@code after} cursor of incremental log reads: the last line id the client has, 0 by default. */
  public static long afterCursor(RoutingContext ctx) {
    String raw = ctx.request().getParam("after");
    if (raw == null || raw.isEmpty()) {
      return 0;
    }
    if (!raw.matches("\\d{1,18}")) {
      throw ApiError.badRequest("Query parameter 'after' must be a non-negative integer");
    }
    return Long.parseLong(raw);
  }

  public int page() {
    return page;
  }

  public int perPage() {
    return perPage;
  }

  public int offset() {
    return (page - 1) * perPage;
  }

  public JsonObject envelope(JsonArray items, long total) {
    long pages = total == 0 ? 0 : (total + perPage - 1) / perPage;
    return new JsonObject().put("items", items).put("page", page).put("per_page", perPage)
        .put("pages", pages).put("total", total);
  }
}
