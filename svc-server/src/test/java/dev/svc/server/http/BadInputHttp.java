package dev.svc.server.http;

import dev.svc.core.OnEventLoop;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.IssuedKeyPair;
import dev.svc.server.TestServer;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * A raw HTTP client for {@link BadInputTest}: sends the request URI byte for byte (no normalization or
 * re-encoding), never waits for the end of an event stream (it reads the status and headers and resets),
 * and gives up after a timeout instead of hanging the suite.
 */
final class BadInputHttp implements AutoCloseable {

  /** What came back: the status, the Content-Type and the body text (empty for an event stream). */
  record Reply(int status, String contentType, String body) {
  }

  private final Vertx vertx;
  private final HttpClient client;

  private BadInputHttp(Vertx vertx, HttpClient client) {
    this.vertx = vertx;
    this.client = client;
  }

  /** A client for the server; with {@code agentName} it presents a client certificate issued by the server's CA. */
  static BadInputHttp of(TestServer server, String agentName) {
    HttpClientOptions options = new HttpClientOptions().setDefaultHost("localhost").setDefaultPort(server.port())
        .setSsl(server.tls()).setConnectTimeout(5000).setIdleTimeout(30).setKeepAlive(true);
    if (server.tls()) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(server.home().certs().resolve("ca.pem").toString()));
      if (agentName != null) {
        IssuedKeyPair issued = CertificateAuthority.loadOrCreate(server.home().certs()).issueClientKeyPair(agentName);
        options.setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(issued.certificatePem()))
            .setKeyValue(Buffer.buffer(issued.privateKeyPem())));
      }
    }
    return new BadInputHttp(server.vertx(), server.vertx().createHttpClient(options));
  }

  /** Sends and waits; a String or Buffer body goes out as application/json unless the headers say otherwise. */
  Reply send(HttpMethod method, String uri, Object body, MultiMap headers) {
    RequestOptions options = new RequestOptions().setMethod(method).setURI(uri).setIdleTimeout(15_000);
    if (headers != null) {
      options.setHeaders(headers);
    }
    Buffer buffer = body == null ? null : body instanceof Buffer ? (Buffer) body : Buffer.buffer(body.toString());
    if (buffer != null && (headers == null || !headers.contains("Content-Type"))) {
      options.putHeader("Content-Type", "application/json");
    }
    try {
      return OnEventLoop.call(vertx, () -> client.request(options).compose(request -> {
        Future<io.vertx.core.http.HttpClientResponse> response = buffer == null ? request.send() : request.send(buffer);
        return response.compose(r -> {
          String type = r.getHeader("Content-Type");
          if (type != null && type.startsWith("text/event-stream")) {
            request.reset();
            return Future.succeededFuture(new Reply(r.statusCode(), type, ""));
          }
          return r.body().map(b -> new Reply(r.statusCode(), type, b.toString()));
        });
      })).await();
    } catch (Exception e) {
      throw new IllegalStateException(method + " " + uri + " failed: " + e, e);
    }
  }

  @Override
  public void close() {
    client.close().await();
  }
}
