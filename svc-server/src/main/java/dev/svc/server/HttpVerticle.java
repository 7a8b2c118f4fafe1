package dev.svc.server;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
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
    return server.requestHandler(routerFactory.get()).invalidRequestHandler(HttpVerticle::invalidRequest).listen();
  }

  /** Requests the HTTP decoder refused (line or headers too long, bad syntax) still get a JSON error. */
  private static void invalidRequest(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    int status = cause instanceof TooLongHttpLineException ? 414
        : cause instanceof TooLongHttpHeaderException ? 431 : 400;
    String message = status == 414 ? "Request line too long" : status == 431 ? "Request headers too large" : "Bad request";
    request.response().setStatusCode(status).putHeader("Content-Type", "application/json; charset=utf-8")
        .putHeader("Connection", "close").end(new JsonObject().put("error", message).encode())
        .onComplete(ar -> request.connection().close());
  }

  public int actualPort() {
    return server.actualPort();
  }
}
