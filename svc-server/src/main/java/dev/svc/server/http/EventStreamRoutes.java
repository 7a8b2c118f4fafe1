package dev.svc.server.http;

import io.vertx.ext.web.Router;

/** Placeholder while the SSE endpoints are written in this session. */
final class EventStreamRoutes {

  EventStreamRoutes(ApiContext api) {
  }

  void mount(Router router) {
  }
}
