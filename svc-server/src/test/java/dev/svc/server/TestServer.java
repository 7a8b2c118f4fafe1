package dev.svc.server;

import dev.svc.core.home.SvcHome;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.IssuedKeyPair;
import dev.svc.server.metrics.NodeMetrics;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** A real svc server started in-process on 127.0.0.1 and an ephemeral port, with HTTP clients for it. */
public final class TestServer implements AutoCloseable {

  /** How to start the server; defaults: HTTPS with the generated CA, no auth token, SQLite in the home. */
  public static final class Options {
    String authToken;
    boolean insecure;
    boolean legacy;
    boolean debug;
    Path resultsDir;
    Path tlsCa;
    Path tlsCert;
    Path tlsKey;
    String dbUrl;
    Path appHome;
    Map<String, String> environment = new HashMap<>();
    Timings timings = Timings.defaults();
    List<String> sans = List.of();
    dev.svc.server.cluster.ClusterSettings cluster;

    /** --cluster: joins the cluster these settings describe (needs a PostgreSQL --db-url). */
    public Options cluster(dev.svc.server.cluster.ClusterSettings settings) {
      this.cluster = settings;
      return this;
    }

    Integer bridgePort;

    /** --bridge-port: the TCP event-bus bridge on this port (0: a free one). */
    public Options bridgePort(int port) {
      this.bridgePort = port;
      return this;
    }

    /** --san: extra names for the certificate, which the server also answers to. */
    public Options sans(String... names) {
      this.sans = List.of(names);
      return this;
    }

    public Options timings(Timings timings) {
      this.timings = timings;
      return this;
    }

    public Options authToken(String token) {
      this.authToken = token;
      return this;
    }

    public Options insecure() {
      this.insecure = true;
      return this;
    }

    /** --debug: the dashboard's templates and static files are not cached. */
    public Options debug() {
      this.debug = true;
      return this;
    }

    public Options legacy() {
      this.legacy = true;
      return this;
    }

    public Options resultsDir(Path dir) {
      this.resultsDir = dir;
      return this;
    }

    public Options tlsCa(Path ca) {
      this.tlsCa = ca;
      return this;
    }

    public Options tlsCertificate(Path cert, Path key) {
      this.tlsCert = cert;
      this.tlsKey = key;
      return this;
    }

    public Options dbUrl(String url) {
      this.dbUrl = url;
      return this;
    }

    public Options appHome(Path dir) {
      this.appHome = dir;
      return this;
    }

    public Options env(String key, String value) {
      this.environment.put(key, value);
      return this;
    }
  }

  private final Vertx vertx;
  private final SvcServer.Running running;
  private final SvcHome home;
  private final List<WebClient> clients = new ArrayList<>();
  private final WebClient client;

  private TestServer(Vertx vertx, SvcServer.Running running, SvcHome home) {
    this.vertx = vertx;
    this.running = running;
    this.home = home;
    this.client = newClient(null, true);
  }

  public static TestServer start(Path homeDir) {
    return start(homeDir, new Options());
  }

  public static TestServer start(Path homeDir, Options o) {
    SvcHome home = new SvcHome(homeDir);
    ServerConfig config = new ServerConfig("127.0.0.1", 0,
        o.resultsDir != null ? o.resultsDir : homeDir.resolve("results-dir"),
        o.debug, o.legacy, o.insecure, o.tlsCert, o.tlsKey, o.tlsCa, o.authToken, home, o.dbUrl, o.sans, o.appHome,
        o.environment, o.timings, o.bridgePort, o.cluster);
    // the Vert.x of `svc web`: reporting into a registry of the node's own, which /metrics serves
    NodeMetrics metrics = NodeMetrics.create();
    dev.svc.server.cluster.ClusterNode node = o.cluster == null ? null
        : dev.svc.server.cluster.ClusterNode.join(o.cluster, metrics).await();
    Vertx vertx = node == null ? metrics.vertx() : node.vertx();
    try {
      return new TestServer(vertx, SvcServer.start(vertx, config, node, metrics).await(), home);
    } catch (Exception e) {
      vertx.close().await();
      throw new IllegalStateException("Test server did not start: " + e.getMessage(), e);
    }
  }

  public SvcServer.Running running() {
    return running;
  }

  public SvcHome home() {
    return home;
  }

  public Vertx vertx() {
    return vertx;
  }

  public int port() {
    return running.port();
  }

  public boolean tls() {
    return running.tls();
  }

  public String baseUrl() {
    return (tls() ? "https" : "http") + "://localhost:" + port();
  }

  /** A client that trusts the server's CA and presents no client certificate. */
  public WebClient client() {
    return client;
  }

  /** A client that presents the given certificate and key (PEM). */
  public WebClient clientWithCertificate(String certPem, String keyPem) {
    return newClient(new PemKeyCertOptions().setCertValue(Buffer.buffer(certPem)).setKeyValue(Buffer.buffer(keyPem)),
        true);
  }

  /** A client like {@link #client()} that returns a redirect as it is, to see where the login gate sends a browser. */
  public WebClient clientNotFollowingRedirects() {
    return newClient(null, false);
  }

  /** A client with a fresh agent certificate issued by the server's CA. */
  public WebClient agentClient(String agentName) {
    IssuedKeyPair issued = CertificateAuthority.loadOrCreate(home.certs()).issueClientKeyPair(agentName);
    return clientWithCertificate(issued.certificatePem(), issued.privateKeyPem());
  }

  private WebClient newClient(PemKeyCertOptions keyCert, boolean followRedirects) {
    WebClientOptions options = new WebClientOptions().setDefaultHost("localhost").setDefaultPort(port())
        .setSsl(tls()).setConnectTimeout(5000).setIdleTimeout(30).setFollowRedirects(followRedirects);
    if (tls()) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(home.certs().resolve("ca.pem").toString()));
      if (keyCert != null) {
        options.setKeyCertOptions(keyCert);
      }
    }
    WebClient c = WebClient.create(vertx, options);
    clients.add(c);
    return c;
  }

  /**
   * Starts {@code n} requests at once (call {@code i} makes the i-th) and waits for every response,
   * in the order of i; for the tests that race requests against each other.
   */
  public static List<HttpResponse<Buffer>> concurrently(int n, IntFunction<Future<HttpResponse<Buffer>>> call)
      throws Exception {
    List<Future<HttpResponse<Buffer>>> calls = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      calls.add(call.apply(i));
    }
    Future.join(calls).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    return calls.stream().map(Future::result).toList();
  }

  /** Sends a request and waits for the response (call from the test thread, never an event loop). */
  public static HttpResponse<Buffer> send(WebClient client, HttpMethod method, String path, String token, Object body) {
    return send(client, method, path, token, body, MultiMap.caseInsensitiveMultiMap());
  }

  public static HttpResponse<Buffer> send(WebClient client, HttpMethod method, String path, String token, Object body,
      MultiMap headers) {
    HttpRequest<Buffer> request = client.request(method, path).putHeaders(headers);
    if (token != null) {
      request.bearerTokenAuthentication(token);
    }
    try {
      if (body == null) {
        return request.send().await();
      }
      Buffer buffer = body instanceof Buffer ? (Buffer) body
          : body instanceof JsonObject ? ((JsonObject) body).toBuffer() : Buffer.buffer(body.toString());
      request.putHeader("Content-Type", "application/json");
      return request.sendBuffer(buffer).await();
    } catch (Exception e) {
      throw new IllegalStateException(method + " " + path + " failed: " + e.getMessage(), e);
    }
  }

  public HttpResponse<Buffer> get(String path) {
    return send(client, HttpMethod.GET, path, null, null);
  }

  public HttpResponse<Buffer> get(String path, String token) {
    return send(client, HttpMethod.GET, path, token, null);
  }

  public HttpResponse<Buffer> post(String path, Object body) {
    return send(client, HttpMethod.POST, path, null, body);
  }

  public HttpResponse<Buffer> post(String path, String token, Object body) {
    return send(client, HttpMethod.POST, path, token, body);
  }

  public HttpResponse<Buffer> put(String path, String token, Object body) {
    return send(client, HttpMethod.PUT, path, token, body);
  }

  public HttpResponse<Buffer> delete(String path, String token) {
    return send(client, HttpMethod.DELETE, path, token, null);
  }

  @Override
  public void close() {
    clients.forEach(WebClient::close);
    running.close().await();
  }
}
