package dev.svc.agent.uplink;

import dev.svc.agent.config.AgentConfig;
import dev.svc.core.home.SvcHome;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.core.buffer.Buffer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How this agent reaches its server: the nodes' base URLs ({@link Servers}), the agent's bearer
 * token and, over HTTPS, the server's CA as the only trust root and the client certificate for
 * mutual TLS (the nodes of a cluster share both, so one client serves them all). {@code insecure}
 * (development only) skips verifying the server's certificate; the client certificate is still sent.
 * One instance serves the daemon and the CLI alike.
 */
public final class ServerConnection {

  private final AgentConfig config;
  private final WebClient client;
  private final Servers servers;

  private ServerConnection(AgentConfig config, WebClient client, Servers servers) {
    this.config = config;
    this.client = client;
    this.servers = servers;
  }

  /** A connection with servers of its own, starting at the first configured one. */
  public static ServerConnection open(Vertx vertx, AgentConfig config, boolean insecure) {
    return open(vertx, config, new Servers(config.serverUris()), insecure);
  }

  /** A connection that shares {@code servers}, and so the current node, with others (the daemon's verticles). */
  public static ServerConnection open(Vertx vertx, AgentConfig config, Servers servers, boolean insecure) {
    return new ServerConnection(config, WebClient.create(vertx, options(config, insecure)), servers);
  }

  static WebClientOptions options(AgentConfig config, boolean insecure) {
    WebClientOptions options = new WebClientOptions().setUserAgent("svc-agent").setConnectTimeout(10_000)
        .setIdleTimeout(60).setFollowRedirects(false);
    if (!config.https()) {
      return options;
    }
    options.setSsl(true).setVerifyHost(!insecure);
    if (insecure) {
      options.setTrustAll(true);
    }
    AgentConfig.Tls tls = config.tls();
    if (tls != null) {
      if (!insecure && tls.ca() != null && Files.isRegularFile(path(tls.ca()))) {
        options.setTrustOptions(new PemTrustOptions().addCertPath(path(tls.ca()).toString()));
      }
      if (tls.cert() != null && tls.key() != null && Files.isRegularFile(path(tls.cert()))) {
        options.setKeyCertOptions(new PemKeyCertOptions().setCertPath(path(tls.cert()).toString())
            .setKeyPath(path(tls.key()).toString()));
      }
    }
    return options;
  }

  private static Path path(String configured) {
    return SvcHome.expand(configured);
  }

  public AgentConfig config() {
    return config;
  }

  public WebClient client() {
    return client;
  }

  /** The node requests go to now: the server the agent talks to. */
  public URI current() {
    return servers.current();
  }

  /** A request to {@code path} (absolute, e.g. /api/v1/health) to the current node, with the agent's token if any. */
  public HttpRequest<Buffer> request(HttpMethod method, String path) {
    return request(current(), method, path);
  }

  /**
   * Sends {@code body} to the current node; when no answer comes (refused, reset, timed out, TLS
   * handshake) the next node becomes current, for the caller's retry. An HTTP answer, whatever its
   * status, leaves the current node as it is.
   */
  public Future<HttpResponse<Buffer>> sendJson(HttpMethod method, String path, long timeoutMs, JsonObject body) {
    URI target = current();
    return request(target, method, path).timeout(timeoutMs).sendJsonObject(body)
        .onFailure(err -> servers.failed(target, err));
  }

  private HttpRequest<Buffer> request(URI base, HttpMethod method, String path) {
    int port = base.getPort() > 0 ? base.getPort() : config.https() ? 443 : 80;
    HttpRequest<Buffer> request = client.request(method, port, base.getHost(), path).ssl(config.https());
    if (!config.token().isEmpty()) {
      request.bearerTokenAuthentication(config.token());
    }
    return request;
  }

  public void close() {
    client.close();
  }
}
