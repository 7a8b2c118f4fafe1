package dev.svc.perf.fleet;

import dev.svc.bench.emulator.Lateness;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

/**
 * How one virtual agent's requests reach the server. All calls come from the agent's event loop.
 */
interface AgentLink {

  /** Sends one request; fails only when no answer came (no connection, reset, timeout). */
  Future<Reply> send(HttpMethod method, String path, String token, Buffer body, long timeoutMs);

  /** Counts the connections this link opened (reconnections included). */
  default long connectionsOpened() {
    return 0;
  }

  void close();

  /** The request both kinds send. */
  static Future<Reply> exchange(HttpClient client, String host, int port, HttpMethod method, String path, String token,
      Buffer body, long timeoutMs) {
    RequestOptions options = new RequestOptions().setMethod(method).setHost(host).setPort(port).setURI(path)
        .setIdleTimeout(timeoutMs);
    return client.request(options).compose(request -> {
      if (token != null) {
        request.putHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token);
      }
      long sent = System.nanoTime();
      Future<io.vertx.core.http.HttpClientResponse> response;
      if (body == null) {
        response = request.send();
      } else {
        request.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        response = request.send(body);
      }
      return response.compose(r -> r.body().map(b -> new Reply(r.statusCode(), b, System.nanoTime() - sent)));
    });
  }

  /**
   * One kept-alive connection of the agent's own, as a real agent has, opened when first needed and
   * again after the server closed it. Over TLS it presents the agent's client certificate. Requests
   * go one after another, as on one HTTP/1.1 connection without pipelining.
   */
  final class Own implements AgentLink {

    private final HttpClientAgent client;
    private final HttpConnectOptions connect;
    private final Gate gate;
    private final Context context;
    private final Lateness connectTimes;
    private HttpClientConnection connection;
    private Future<?> tail = Future.succeededFuture();
    private long opened;
    private boolean closed;

    /**
     * @param context the agent's event loop, where the connection lives
     * @param connectTimes records how long each connection took to open (TCP and TLS), gate wait excluded
     */
    Own(HttpClientAgent client, HttpConnectOptions connect, Gate gate, Context context,
        Lateness connectTimes) {
      this.client = client;
      this.connect = connect;
      this.gate = gate;
      this.context = context;
      this.connectTimes = connectTimes;
    }

    @Override
    public Future<Reply> send(HttpMethod method, String path, String token, Buffer body, long timeoutMs) {
      Promise<Reply> done = Promise.promise();
      Future<?> before = tail;
      tail = done.future().transform(ar -> Future.succeededFuture());
      before.onComplete(ignored -> connection().compose(c -> exchange(c, connect.getHost(), connect.getPort(), method,
          path, token, body, timeoutMs)).onComplete(done));
      return done.future();
    }

    private Future<HttpClientConnection> connection() {
      if (closed) {
        return Future.failedFuture("the agent stopped");
      }
      if (connection != null) {
        return Future.succeededFuture(connection);
      }
      return gate.acquire(context).compose(v -> {
        long started = System.nanoTime();
        return client.connect(connect).onComplete(ar -> {
          gate.release();
          if (ar.succeeded()) {
            connectTimes.record(System.nanoTime() - started);
          }
        });
      }).map(c -> {
        opened++;
        connection = c;
        c.closeHandler(v -> {
          if (connection == c) {
            connection = null;
          }
        });
        if (closed) {
          c.close();
        }
        return c;
      });
    }

    @Override
    public long connectionsOpened() {
      return opened;
    }

    @Override
    public void close() {
      closed = true;
      if (connection != null) {
        connection.close();
        connection = null;
      }
    }
  }

  /** The agents' requests share one pool of kept-alive connections (plain HTTP, {@code --shared-connections}). */
  final class Shared implements AgentLink {

    private final HttpClientAgent pool;
    private final String host;
    private final int port;

    Shared(HttpClientAgent pool, String host, int port) {
      this.pool = pool;
      this.host = host;
      this.port = port;
    }

    @Override
    public Future<Reply> send(HttpMethod method, String path, String token, Buffer body, long timeoutMs) {
      return exchange(pool, host, port, method, path, token, body, timeoutMs);
    }

    @Override
    public void close() {
      // the pool is the fleet's, closed once at the end
    }
  }
}
