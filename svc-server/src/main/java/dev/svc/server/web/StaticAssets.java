package dev.svc.server.web;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * Serves the dashboard's own CSS/JS (classpath {@code web/static}) under /static/ and the WebJars
 * (htmx, Chart.js) under /static/vendor/, so the pages need nothing from any other origin.
 */
final class StaticAssets {

  static final String HTMX = "/static/vendor/htmx.org/2.0.4/dist/htmx.min.js";
  static final String CHART_JS = "/static/vendor/chart.js/4.4.1/dist/chart.umd.js";

  private StaticAssets() {
  }

  static void mount(Router router, boolean debug) {
    router.get("/static/vendor/*").handler(handler("META-INF/resources/webjars", debug));
    router.get("/static/*").handler(handler("web/static", debug));
  }

  private static StaticHandler handler(String root, boolean debug) {
    StaticHandler handler = StaticHandler.create(root).setDirectoryListing(false).setIncludeHidden(false)
        .setCachingEnabled(!debug);
    return debug ? handler.setMaxAgeSeconds(0) : handler.setMaxAgeSeconds(3600);
  }
}
