package dev.svc.server;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.util.function.Supplier;

/** Serves one router on the configured address; several instances share the port. */
public final class HttpVerticle extends VerticleBase {

  private final Supplier<Router> routerFactory;
  private final HttpServerOptions options;
  private HttpServer server;

  public HttpVerticle(Supplier<Router> routerFactory, HttpServerOptions options) {
    this.routerFactory = routerFactory;
    this.options = options;
  }

  @Override
  public Future<?> start() {
    server = vertx.createHttpServer(new HttpServerOptions(options));
    return server.requestHandler(routerFactory.get()).listen();
  }

  public int actualPort() {
    return server.actualPort();
  }
}
