package dev.svc.server.http;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * One area of the REST API (agents, tests, campaigns, results…), built with the services it uses
 * and nothing else; {@link ApiRouter} mounts every area on each HTTP verticle's router.
 */
public interface ApiArea {

  /** Mounts the area's routes; {@code body} takes up to 1 MiB, {@code largeBody} (results) up to 16 MiB. */
  void mount(Router router, BodyHandler body, BodyHandler largeBody);
}
