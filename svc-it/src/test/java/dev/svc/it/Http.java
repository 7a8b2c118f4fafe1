package dev.svc.it;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A blocking JSON client for tests: a base URL, an optional bearer token, and the one CA it trusts. */
public final class Http {

  /** A response: status and body, read as JSON on demand. */
  public record Response(int status, String body) {
    public JsonObject json() {
      return new JsonObject(body);
    }

    public JsonArray array() {
      return new JsonArray(body);
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  private final URI base;
  private final String token;
  private final HttpClient client;

  public Http(URI base, String token, Path caPem) {
    this.base = base;
    this.token = token;
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    if (caPem != null) {
      builder.sslContext(trusting(caPem));
    }
    this.client = builder.build();
  }

  /** A client that presents {@code identity} (a client certificate and its key) and trusts the CA at {@code caPem}. */
  public static Http withClientCertificate(URI base, String token, Path caPem, dev.svc.core.tls.IssuedKeyPair identity) {
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      char[] password = "unused".toCharArray();
      keys.setKeyEntry("agent", dev.svc.core.tls.Pem.parsePrivateKey(identity.privateKeyPem()), password,
          new java.security.cert.Certificate[] {dev.svc.core.tls.Pem.parseCertificate(identity.certificatePem())});
      javax.net.ssl.KeyManagerFactory keyManagers =
          javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, password);
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      trusted.setCertificateEntry("ca", dev.svc.core.tls.Pem.readCertificate(caPem));
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers.getKeyManagers(), trust.getTrustManagers(), new SecureRandom());
      return new Http(base, token, null,
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(context).build());
    } catch (Exception e) {
      throw new IllegalStateException("Cannot present the certificate of " + identity.fingerprint(), e);
    }
  }

  public Http withToken(String otherToken) {
    return new Http(base, otherToken, null, client);
  }

  private Http(URI base, String token, Void unused, HttpClient client) {
    this.base = base;
    this.token = token;
    this.client = client;
  }

  public URI base() {
    return base;
  }

  public Response get(String path) {
    return send(request(path).GET());
  }

  public Response post(String path, JsonObject body) {
    return send(request(path).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.encode())));
  }

  public Response put(String path, JsonObject body) {
    return send(request(path).header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(body.encode())));
  }

  public Response delete(String path) {
    return send(request(path).DELETE());
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
    if (token != null && !token.isEmpty()) {
      builder.header("Authorization", "Bearer " + token);
    }
    return builder;
  }

  private Response send(HttpRequest.Builder request) {
    try {
      // the whole body within a minute: a stream that never ends fails the test instead of hanging it
      HttpResponse<String> response = client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString())
          .get(60, java.util.concurrent.TimeUnit.SECONDS);
      return new Response(response.statusCode(), response.body());
    } catch (java.util.concurrent.ExecutionException e) {
      throw new java.io.UncheckedIOException(e.getCause() instanceof IOException io ? io : new IOException(e.getCause()));
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("No complete answer within 60 s: " + request.build().uri());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static SSLContext trusting(Path caPem) {
    try {
      X509Certificate ca = dev.svc.core.tls.Pem.readCertificate(caPem);
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      store.setCertificateEntry("ca", ca);
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), new SecureRandom());
      return context;
    } catch (Exception e) {
      throw new IllegalStateException("Cannot trust " + caPem, e);
    }
  }
}
