package dev.svc.server.web;

import io.vertx.ext.web.RoutingContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Server-side paging of a list page: the page asked for (a malformed or out-of-range {@code ?page=}
 * falls back to the first), and the links of the {@code <nav class="pager">} that keep the filters.
 */
final class Pager {

  static final int PER_PAGE = 25;
  private static final int MAX_PAGE = 1_000_000;

  private final int page;
  private final int perPage;
  private final boolean byTime;

  private Pager(int page, int perPage, boolean byTime) {
    this.page = page;
    this.perPage = perPage;
    this.byTime = byTime;
  }

  /** The pager of a list sorted newest first, {@link #PER_PAGE} rows a page: its links say "Newer" and "Older". */
  static Pager of(RoutingContext ctx) {
    return new Pager(asked(ctx), PER_PAGE, true);
  }

  /** The pager of a list in another order (agents by name): its links say "Previous" and "Next". */
  static Pager of(RoutingContext ctx, int perPage) {
    return new Pager(asked(ctx), perPage, false);
  }

  private static int asked(RoutingContext ctx) {
    String raw = QueryParams.get(ctx, "page");
    int page = raw != null && raw.matches("\\d{1,7}") ? Integer.parseInt(raw) : 1;
    return Math.max(1, Math.min(page, MAX_PAGE));
  }

  int limit() {
    return perPage;
  }

  int offset() {
    return (page - 1) * perPage;
  }

  /**
   * The template model of the pager: {@code page}, {@code pages}, {@code total} and the
   * {@code prev}/{@code next} URLs (null when there is no such page).
   *
   * @param path the list page's path
   * @param filters query parameters to keep in the links (null or empty values are left out)
   */
  Map<String, Object> model(long total, String path, Map<String, String> filters) {
    long pages = total == 0 ? 1 : (total + perPage - 1) / perPage;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("page", page);
    out.put("pages", pages);
    out.put("total", total);
    out.put("prev_label", byTime ? "‹ Newer" : "‹ Previous");
    out.put("next_label", byTime ? "Older ›" : "Next ›");
    out.put("prev", page > 1 ? link(path, filters, Math.min(page - 1, pages)) : null);
    out.put("next", page < pages ? link(path, filters, page + 1) : null);
    return out;
  }

  private static String link(String path, Map<String, String> filters, long page) {
    StringBuilder url = new StringBuilder(path).append('?');
    filters.forEach((key, value) -> {
      if (value != null && !value.isEmpty()) {
        url.append(key).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8)).append('&');
      }
    });
    return url.append("page=").append(page).toString();
  }
}
