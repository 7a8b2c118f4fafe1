package dev.svc.agent.cli;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.logs.AgentStatusAnswer;
import dev.svc.core.home.SvcHome;
import dev.svc.core.protocol.ErrorBody;
import dev.svc.core.protocol.BadMessage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.ConnectException;
import java.nio.file.Files;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The CLI's client of the local agent's own API (protocol.md §8) at its bind address (127.0.0.1
 * when it binds every interface) and port: HTTPS trusting only the CA of that API
 * ({@code certs/api/ca.pem}, made at init) when TLS is configured, else HTTP. The CA, which only
 * this agent's home holds, is what authenticates the agent; the agent's token, sent on every call,
 * authenticates the CLI where the agent listens on an address other than loopback.
 * Blocking calls: the CLI's main thread waits, never an event loop.
 */
public final class LocalAgent implements AutoCloseable {

  static final long TIMEOUT_MS = 10_000;

  private final Vertx vertx;
  private final WebClient client;
  private final AgentConfig config;
  private final boolean https;

  private LocalAgent(Vertx vertx, WebClient client, AgentConfig config, boolean https) {
    this.vertx = vertx;
    this.client = client;
    this.config = config;
    this.https = https;
  }

  /** Thrown when the local agent answers with a status other than the expected one. */
  public static final class Answer extends RuntimeException {
    private final int status;
    private final String body;

    Answer(int status, String body) {
      super("HTTP " + status + errorText(body));
      this.status = status;
      this.body = body;
    }

    public int status() {
      return status;
    }

    public String body() {
      return body;
    }
  }

  /** The agent of {@code home}: HTTPS trusting the CA of its own API when TLS is configured, else HTTP. */
  public static LocalAgent open(AgentHome home, AgentConfig config) {
    WebClientOptions options = new WebClientOptions().setUserAgent("svc-agent-cli").setConnectTimeout(5000)
        .setFollowRedirects(false);
    boolean https = config.tls() != null;
    if (https) {
      if (!Files.isRegularFile(home.apiCa())) {
        throw new IllegalArgumentException("The CA of the agent's API is missing: " + home.apiCa()
            + " (svc-agent init makes it; run init again with --force)");
      }
      options.setSsl(true).setVerifyHost(false).setTrustOptions(new PemTrustOptions().addCertPath(home.apiCa().toString()));
    }
    Vertx vertx = Vertx.vertx();
    return new LocalAgent(vertx, WebClient.create(vertx, options), config, https);
  }

  /** Where the agent listens: its bind address, or 127.0.0.1 when it listens on every interface. */
  public static String host(AgentConfig config) {
    return config.bindsEverywhere() ? "127.0.0.1" : config.bind();
  }

  public String baseUrl() {
    String host = host(config);
    return (https ? "https" : "http") + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + config.port();
  }

  /**
   * {@code GET /api/status}; fails with ConnectException when nothing listens, {@link Answer} on a
   * non-200 or an answer that is not a status.
   */
  public AgentStatusAnswer status() {
    HttpResponse<Buffer> response = await(request(HttpMethod.GET, "/api/status").timeout(TIMEOUT_MS).send());
    if (response.statusCode() != 200) {
      throw new Answer(response.statusCode(), response.bodyAsString());
    }
    JsonObject body;
    try {
      body = response.bodyAsJsonObject();
    } catch (RuntimeException e) {
      throw new Answer(response.statusCode(), "not JSON: " + response.bodyAsString());
    }
    if (body == null) {
      throw new Answer(response.statusCode(), "an empty body");
    }
    try {
      return AgentStatusAnswer.parse(body);
    } catch (BadMessage e) {
      throw new Answer(response.statusCode(), "a malformed status: " + e.getMessage());
    }
  }

  /** {@code POST /api/tests/<id>/cancel} with the agent's token; the response whatever its status. */
  public HttpResponse<Buffer> cancel(String testId) {
    return await(request(HttpMethod.POST, "/api/tests/" + testId + "/cancel").timeout(TIMEOUT_MS * 3).send());
  }

  private HttpRequest<Buffer> request(HttpMethod method, String path) {
    HttpRequest<Buffer> request = client.request(method, config.port(), host(config), path).ssl(https);
    if (!config.token().isEmpty()) {
      request.bearerTokenAuthentication(config.token());
    }
    return request;
  }

  /** Whether {@code failure} means nothing listens on the agent's port. */
  public static boolean notListening(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  static <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(TIMEOUT_MS * 4, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause().getMessage(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("No answer within " + TIMEOUT_MS * 4 / 1000 + " s", e);
    }
  }

  /** The {@code error} of a JSON error body, else the body itself (shortened). */
  static String errorText(String body) {
    if (body == null || body.isBlank()) {
      return "";
    }
    Optional<String> error = ErrorBody.sentence(body);
    if (error.isPresent()) {
      return ": " + error.get();
    }
    String text = body.strip().replace('\n', ' ');
    return ": " + (text.length() > 200 ? text.substring(0, 200) + "…" : text);
  }

  @Override
  public void close() {
    client.close();
    vertx.close();
  }
}
