package dev.svc.server.http;

import dev.svc.server.store.Cursor;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * The one pagination envelope of every list endpoint: page ≥ 1, per_page 1..200 (default 25). The
 * lists sorted newest first (results, quick tests, campaigns) also take {@code cursor}, the
 * {@code next_cursor} of the page before: the rows right after it, found by seeking, however deep.
 */
public final class Pagination {

  public static final int DEFAULT_PER_PAGE = 25;
  public static final int MAX_PER_PAGE = 200;
  public static final int DEFAULT_LOG_LINES = 1_000;
  public static final int MAX_LOG_LINES = 10_000;

  private final int page;
  private final int perPage;
  private final Cursor cursor;

  public Pagination(int page, int perPage) {
    this(page, perPage, null);
  }

  private Pagination(int page, int perPage, Cursor cursor) {
    this.page = page;
    this.perPage = perPage;
    this.cursor = cursor;
  }

  public static Pagination of(RoutingContext ctx) {
    return new Pagination(param(ctx, "page", 1, 1, 1_000_000), param(ctx, "per_page", DEFAULT_PER_PAGE, 1, MAX_PER_PAGE));
  }

  /** The pagination of a list that also takes {@code cursor}. */
  public static Pagination withCursor(RoutingContext ctx) {
    String raw = ctx.request().getParam("cursor");
    Cursor cursor = raw == null || raw.isEmpty() ? null : Cursor.decode(raw).orElseThrow(() ->
        ApiError.badRequest("Query parameter 'cursor' must be the next_cursor of a page of this list"));
    Pagination p = of(ctx);
    return new Pagination(p.page, p.perPage, cursor);
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

  /**
   * Lines one read of a log returns: {@code limit}, 1..10,000, default 1,000. A log can hold hundreds
   * of thousands of lines; a client reads on with {@code after} until a read returns fewer lines
   * than it asked for.
   */
  public static int logLimit(RoutingContext ctx) {
    return param(ctx, "limit", DEFAULT_LOG_LINES, 1, MAX_LOG_LINES);
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

  /** Where the page starts when the client sent the cursor of the page before; null otherwise. */
  public Cursor cursor() {
    return cursor;
  }

  public JsonObject envelope(JsonArray items, long total) {
    long pages = total == 0 ? 0 : (total + perPage - 1) / perPage;
    return new JsonObject().put("items", items).put("page", page).put("per_page", perPage)
        .put("pages", pages).put("total", total);
  }

  /** The envelope of a list that takes cursors: {@code next_cursor} asks for the page after this one (null on the last). */
  public JsonObject envelope(JsonArray items, long total, Cursor next) {
    return envelope(items, total).put("next_cursor", next == null ? null : next.encode());
  }
}
