package dev.svc.bench.run;

import dev.svc.bench.client.TlsOptions;
import dev.svc.engines.EngineVersion;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.Optional;

/**
 * Asks a healthy engine for its version, over the measurement client's TLS setup and under its base
 * path. Never fails: an engine that does not answer gives a version with the reason.
 */
final class EngineVersionProbe {

  private static final long TIMEOUT_MS = 10_000;

  private EngineVersionProbe() {
  }

  static Future<EngineVersion> ask(Vertx vertx, EngineTarget engine, String engineName) {
    Optional<String> own = EngineVersion.path(engineName);
    if (own.isEmpty()) {
      return Future.succeededFuture(EngineVersion.notAskable(engineName));
    }
    String path = engine.enginePath(own.get());
    HttpClientAgent http = vertx.createHttpClient(TlsOptions.apply(new HttpClientOptions(), engine.tls(), engine.trustedCa()));
    RequestOptions get = new RequestOptions().setMethod(HttpMethod.GET).setHost(engine.host()).setPort(engine.port())
        .setURI(path).setConnectTimeout(TIMEOUT_MS).setIdleTimeout(TIMEOUT_MS).putHeader("Accept", "application/json");
    return http.request(get)
        .compose(request -> request.send())
        .compose(response -> response.body().map(body -> EngineVersion.parse(engineName, response.statusCode(),
            body.toString())))
        .map(version -> version.version() != null ? version : EngineVersion.unknown("GET " + path + " " + version.reason()))
        .otherwise(error -> EngineVersion.unknown("GET " + path + " failed: " + message(error)))
        .eventually(http::close);
  }

  private static String message(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }
}
