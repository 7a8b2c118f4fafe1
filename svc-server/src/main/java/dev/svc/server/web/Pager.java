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

  private Pager(int page) {
    this.page = page;
  }

  static Pager of(RoutingContext ctx) {
    String raw = QueryParams.get(ctx, "page");
    int page = raw != null && raw.matches("\\d{1,7}") ? Integer.parseInt(raw) : 1;
    return new Pager(Math.max(1, Math.min(page, MAX_PAGE)));
  }

  int limit() {
    return PER_PAGE;
  }

  int offset() {
    return (page - 1) * PER_PAGE;
  }

  /**
   * The template model of the pager: {@code page}, {@code pages}, {@code total} and the
   * {@code prev}/{@code next} URLs (null when there is no such page).
   *
   * @param path the list page's path
   * @param filters query parameters to keep in the links (null or empty values are left out)
   */
  Map<String, Object> model(long total, String path, Map<String, String> filters) {
    long pages = total == 0 ? 1 : (total + PER_PAGE - 1) / PER_PAGE;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("page", page);
    out.put("pages", pages);
    out.put("total", total);
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
