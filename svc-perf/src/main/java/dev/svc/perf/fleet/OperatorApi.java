package dev.svc.perf.fleet;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The operator's side of the API (what a person or a script does with the global token):
 * provisioning agents, their certificates, quick tests, deleting agents. A pooled client without a
 * client certificate; a request the server could not answer (no connection, 408, 429, 5xx) is sent
 * again a few times, each retry counted as an error of its kind.
 */
final class OperatorApi {

  static final long TIMEOUT_MS = 30_000;
  private static final int ATTEMPTS = 5;

  private final Vertx vertx;
  private final HttpClientAgent client;
  private final FleetOptions options;
  private final FleetStats stats;

  OperatorApi(Vertx vertx, HttpClientAgent client, FleetOptions options, FleetStats stats) {
    this.vertx = vertx;
    this.client = client;
    this.options = options;
    this.stats = stats;
  }

  /** The answer, after retries of transient failures; {@code what} names the call in error kinds ("provision"). */
  Future<Reply> call(String what, HttpMethod method, String path, String token, JsonObject body) {
    Promise<Reply> done = Promise.promise();
    attempt(what, method, path, token, body == null ? null : body.toBuffer(), 0, done);
    return done.future();
  }

  private void attempt(String what, HttpMethod method, String path, String token, Buffer body, int attempt,
      Promise<Reply> done) {
    AgentLink.exchange(client, options.host(), options.port(), method, path, token, body, TIMEOUT_MS)
        .onComplete(ar -> {
          boolean again = ar.failed() || ar.result().transientFailure();
          if (!again || attempt + 1 >= ATTEMPTS) {
            if (ar.failed()) {
              stats.error(what + ": " + FleetErrors.kind(ar.cause()));
            }
            done.handle(ar);
            return;
          }
          stats.error(what + ": " + (ar.failed() ? FleetErrors.kind(ar.cause()) : "HTTP " + ar.result().status()));
          long delay = Math.min(10_000, 500L << attempt);
          vertx.setTimer(delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1),
              t -> attempt(what, method, path, token, body, attempt + 1, done));
        });
  }

  void close() {
    client.close();
  }
}
