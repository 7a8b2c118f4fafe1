package dev.svc.server.web;

import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import io.pebbletemplates.pebble.PebbleEngine;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.templ.pebble.PebbleTemplateEngine;
import io.vertx.ext.web.templ.pebble.impl.PebbleVertxLoader;
import java.util.HashMap;
import java.util.Map;

/**
 * Renders a page template (Pebble, HTML autoescaping on) with the model every page shares: the
 * active nav entry, the session's CSRF token and the vendor script URLs. In debug mode the
 * compiled-template cache is dropped before every render so edited templates show on reload.
 */
final class PageRenderer {

  private static final String DIR = "web/templates/";

  private final PebbleTemplateEngine engine;
  private final boolean debug;

  PageRenderer(Vertx vertx, boolean debug) {
    // Pebble's own cache keeps parsed parents (base.peb) too; without it every render re-reads them
    // the templates are UTF-8 whatever the locale: the loader would read them in the platform's charset,
    // which is ASCII for a service started without LANG (systemd's default)
    PebbleVertxLoader loader = new PebbleVertxLoader(vertx);
    loader.setCharset("UTF-8");
    PebbleEngine pebble = new PebbleEngine.Builder().loader(loader).cacheActive(!debug).build();
    this.engine = PebbleTemplateEngine.create(vertx, "peb", pebble);
    this.debug = debug;
  }

  /** Renders {@code template} (a name under web/templates, without extension) and ends the response. */
  void render(RoutingContext ctx, int status, String template, String nav, Map<String, Object> model) {
    Map<String, Object> all = new HashMap<>(model);
    all.put("nav", nav);
    all.put("csrf_token", ctx.get(PageAccess.CSRF_KEY, ""));
    all.put("auth_enabled", ctx.get(PageAccess.AUTH_KEY, false));
    all.put("htmx_js", StaticAssets.HTMX);
    all.put("chart_js", StaticAssets.CHART_JS);
    if (debug) {
      engine.clearCache();
    }
    Future<Buffer> rendered;
    try {
      rendered = engine.render(all, DIR + template + ".peb");
    } catch (RuntimeException e) { // the engine throws template errors instead of failing the future
      rendered = Future.failedFuture(e);
    }
    rendered.onComplete(ar -> {
      if (ctx.response().ended()) {
        return;
      }
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      SecurityHeaders.apply(ctx.response());
      ctx.response().setStatusCode(status).putHeader("Content-Type", "text/html; charset=utf-8")
          .putHeader("Cache-Control", "no-store").end(ar.result());
    });
  }
}
