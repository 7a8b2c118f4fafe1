package dev.svc.server.web;

import io.vertx.ext.web.RoutingContext;

/** A page's query parameters, read leniently: a malformed query (a broken %-escape) counts as absent, never as a fault. */
final class QueryParams {

  private QueryParams() {
  }

  static String get(RoutingContext ctx, String name) {
    try {
      return ctx.request().getParam(name);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
