package dev.svc.agent.logs;

import dev.svc.agent.AgentBus;
import dev.svc.agent.AgentBus.Cancel;
import dev.svc.agent.AgentBus.EngineState;
import dev.svc.agent.AgentBus.RunEnded;
import dev.svc.agent.AgentBus.RunLine;
import dev.svc.agent.engine.CommandJournal;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.storage.StorageFigures;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.uplink.Servers;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.ServerCertificate;
import io.netty.util.NetUtil;
import io.vertx.core.buffer.Buffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's own HTTP API (protocol.md §8) on {@code config.bind()}:{@code config.port()}: HTTPS when the
 * configuration has a {@code tls} mapping (the agent talks HTTPS to its server), plain HTTP
 * otherwise. The client certificate from {@code svc-agent init} cannot serve: it is for client
 * authentication only and names no host. So the agent keeps a CA of its own in
 * {@code certs/api/} ({@code ca.pem}, owner-only key) and a server certificate it signs for
 * localhost, 127.0.0.1, ::1 and the host name ({@code server.pem}); local clients such as
 * {@code svc-agent status} trust {@code certs/api/ca.pem}.
 * <ul>
 *   <li>{@code GET /api/status} (loopback callers, others with the agent token): name, whether a
 *       benchmark runs and which, model storage figures, the server node it talks to now;</li>
 *   <li>{@code GET /api/logs/<command_id>} (agent token): SSE {@code event: log} with the buffered
 *       lines first, then live ones, ending when the command's test ends;</li>
 *   <li>{@code POST /api/tests/<test_id>/cancel} (agent token): stops the benchmark through the engine.</li>
 * </ul>
 * Lines come from {@link AgentBus#LOG}; a test's end from {@link AgentBus#TEST_ENDED}.
 */
public final class LogServerVerticle extends VerticleBase {

  static final int MAX_LINES = 10_000;
  static final int MAX_COMMANDS = 8;
  private static final long ENGINE_TIMEOUT_MS = 5000;
  private static final Logger LOG = LoggerFactory.getLogger(LogServerVerticle.class);

  private final AgentHome home;
  private final AgentConfig config;
  private final Servers servers;
  private final CommandLogs logs = new CommandLogs(MAX_LINES, MAX_COMMANDS);
  /** test id → command id, so a test's end ends its command's stream. */
  private final Map<String, String> commandOfTest = new HashMap<>();
  private JsonObject settings;
  private HttpServer http;

  public LogServerVerticle(AgentHome home, AgentConfig config) {
    this(home, config, new Servers(config.serverUris()));
  }

  /** @param servers the daemon's, whose current node {@code /api/status} names */
  public LogServerVerticle(AgentHome home, AgentConfig config, Servers servers) {
    this.home = home;
    this.config = config;
    this.servers = servers;
  }

  @Override
  public Future<?> start() {
    var bus = vertx.eventBus();
    Future<Void> consumers = Future.all(
        bus.<JsonObject>consumer(AgentBus.LOG, m -> line(m.body())).completion(),
        bus.<JsonObject>consumer(AgentBus.TEST_ENDED, m -> ended(m.body())).completion(),
        bus.<JsonObject>consumer(AgentBus.SETTINGS, m -> settings = m.body()).completion()).mapEmpty();
    Router router = Router.router(vertx);
    router.get("/api/status").handler(this::status);
    router.get("/api/logs/:commandId").handler(this::stream);
    router.post("/api/tests/:testId/cancel").handler(this::cancel);
    router.route("/api/*").handler(ctx -> json(ctx, 404, error("No such endpoint")));
    return consumers.compose(v -> vertx.executeBlocking(this::options)).compose(options -> {
      http = vertx.createHttpServer(options).requestHandler(router);
      return http.listen(config.port(), config.bind());
    }).onSuccess(server -> {
      LOG.info("Agent API listening on {}://{}:{}", tls() ? "https" : "http", config.bind(), server.actualPort());
      if (!loopback(config.bind()) && !config.bind().equalsIgnoreCase("localhost")) {
        if (config.token().isEmpty()) {
          LOG.warn("Agent API reachable from other hosts and this agent has no token: they may read logs and cancel"
              + " tests (status is served to local callers only)");
        } else {
          LOG.info("Agent API reachable from other hosts: logs, cancel and status need the agent's token there");
        }
      }
    });
  }

  @Override
  public Future<?> stop() {
    return http == null ? Future.succeededFuture() : http.close();
  }

  /** The port actually bound (for tests that ask for port 0). */
  public int actualPort() {
    return http.actualPort();
  }

  private boolean tls() {
    return config.tls() != null;
  }

  /**
   * The API's certificate under {@link AgentHome#apiCertificates()}, made (with its CA) when
   * missing and renewed near expiry. Blocking.
   */
  public static ServerCertificate apiCertificate(AgentHome home) {
    Path dir = home.apiCertificates();
    return CertificateAuthority.loadOrCreate(dir)
        .ensureServerCertificate(dir, ServerCertificate.defaultSans(List.of()), Duration.ofDays(30));
  }

  /** Blocking (may create the CA and certificate). */
  private HttpServerOptions options() {
    HttpServerOptions options = new HttpServerOptions();
    if (tls()) {
      ServerCertificate certificate = apiCertificate(home);
      options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(certificate.certificatePem()))
          .setKeyValue(Buffer.buffer(certificate.privateKeyPem())));
    }
    return options;
  }

  // --- the bus ---

  private void line(JsonObject body) {
    RunLine line;
    try {
      line = RunLine.parse(body == null ? new JsonObject() : body);
    } catch (BadMessage e) {
      LOG.debug("Ignoring a log line that is not one: {}", e.getMessage());
      return;
    }
    if (line.testId() != null) {
      commandOfTest.put(line.testId(), line.commandId());
      if (commandOfTest.size() > 4 * MAX_COMMANDS) {
        commandOfTest.remove(commandOfTest.keySet().iterator().next());
      }
    }
    logs.append(line.commandId(), line.line());
  }

  private void ended(JsonObject body) {
    RunEnded run;
    try {
      run = RunEnded.parse(body == null ? new JsonObject() : body);
    } catch (BadMessage e) {
      LOG.debug("Ignoring an end that is not one: {}", e.getMessage());
      return;
    }
    String commandId = run.commandId();
    if (commandId == null) {
      commandId = commandOfTest.get(run.testId());
    }
    if (commandId != null) {
      logs.end(commandId);
    }
  }

  // --- routes ---

  private void status(RoutingContext ctx) {
    if (!mayReadStatus(ctx)) {
      return;
    }
    engineState().onComplete(state -> {
      EngineState engine = state.succeeded() ? state.result() : EngineState.IDLE;
      Path dir = StorageFigures.dir(config, settings);
      vertx.executeBlocking(() -> new AgentStatusAnswer.Storage(StorageFigures.freeGb(dir), StorageFigures.usedGb(dir),
          StorageFigures.modelCount(dir)))
          .onComplete(storage -> json(ctx, 200, new AgentStatusAnswer(config.name(), engine.busy(), engine.testId(),
              storage.succeeded() ? storage.result() : AgentStatusAnswer.Storage.UNKNOWN,
              servers.current().toString()).toJson()));
    });
  }

  private void stream(RoutingContext ctx) {
    if (!authorized(ctx)) {
      return;
    }
    String commandId = ctx.pathParam("commandId");
    if (logs.knows(commandId)) {
      follow(ctx, commandId);
      return;
    }
    // not in the buffer: a command this agent accepted is followed (or, over, ends at once); others are 404
    Future<Optional<Boolean>> done = commandId.matches("[A-Za-z0-9_-]{1,64}")
        ? vertx.executeBlocking(() -> CommandJournal.done(home.jobs(), commandId)) : Future.succeededFuture(Optional.empty());
    done.onComplete(known -> {
          if (known.failed() || known.result().isEmpty()) {
            json(ctx, 404, error("No benchmark with command id " + commandId + " on this agent"));
          } else {
            if (known.result().get()) {
              logs.end(commandId);
            }
            follow(ctx, commandId);
          }
        });
  }

  private void follow(RoutingContext ctx, String commandId) {
    HttpServerResponse response = ctx.response();
    response.setChunked(true).putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache").putHeader("X-Accel-Buffering", "no");
    response.write(": " + commandId + "\n\n");
    CommandLogs.Listener listener = new CommandLogs.Listener() {
      @Override
      public void line(String line) {
        if (!response.closed() && !response.ended()) {
          response.write("event: log\ndata: " + new JsonObject().put("command_id", commandId).put("line", line).encode()
              + "\n\n");
        }
      }

      @Override
      public void end() {
        if (!response.closed() && !response.ended()) {
          response.end();
        }
      }
    };
    response.closeHandler(v -> logs.unfollow(commandId, listener));
    logs.follow(commandId, listener);
  }

  private void cancel(RoutingContext ctx) {
    if (!authorized(ctx)) {
      return;
    }
    String testId = ctx.pathParam("testId");
    engineState().onComplete(state -> {
      if (state.failed()) {
        json(ctx, 503, error("The engine does not answer: " + state.cause().getMessage()));
        return;
      }
      if (!state.result().running(testId)) {
        json(ctx, 404, error("Test " + testId + " is not running on this agent"));
        return;
      }
      vertx.eventBus().<JsonObject>request(AgentBus.ENGINE_CANCEL, new Cancel(testId).toJson(),
          new DeliveryOptions().setSendTimeout(30_000)).onComplete(reply -> {
            if (reply.failed()) {
              json(ctx, 503, error("The engine did not cancel test " + testId + ": " + reply.cause().getMessage()));
            } else if (reply.result().body() != null && Cancel.Answer.parse(reply.result().body()).cancelled()) {
              json(ctx, 200, new JsonObject().put("cancelled", true).put("test_id", testId));
            } else {
              json(ctx, 409, error("Test " + testId + " could not be cancelled: it is ending"));
            }
          });
    });
  }

  private Future<EngineState> engineState() {
    return vertx.eventBus().<JsonObject>request(AgentBus.ENGINE_STATE, new JsonObject(),
        new DeliveryOptions().setSendTimeout(ENGINE_TIMEOUT_MS)).map(m -> m.body() == null ? EngineState.IDLE
            : EngineState.parse(m.body()));
  }

  /**
   * Status names the agent and its current test, so only this host may read it freely; another
   * host needs the token, and an agent without one serves it to none.
   */
  private boolean mayReadStatus(RoutingContext ctx) {
    SocketAddress caller = ctx.request().connection().remoteAddress();
    if (caller != null && loopback(caller.hostAddress())) {
      return true;
    }
    if (config.token().isEmpty()) {
      json(ctx, 403, error("Status is served only to local callers: this agent has no token"));
      return false;
    }
    return authorized(ctx);
  }

  /** Whether {@code address} is an IP literal in 127.0.0.0/8 or ::1 (IPv4-mapped too); no name is looked up. */
  static boolean loopback(String address) {
    byte[] bytes = address == null ? null : NetUtil.createByteArrayFromIpAddressString(address);
    if (bytes == null) {
      return false;
    }
    try {
      // a 16-byte IPv4-mapped address comes back as the IPv4 address
      return InetAddress.getByAddress(bytes).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * The agent's token as a bearer credential, compared in constant time: 401 without one, 403 for
   * another. An agent configured without a token (an open server) serves these routes to anyone
   * who can reach the port, as its server does.
   */
  private boolean authorized(RoutingContext ctx) {
    String token = config.token();
    if (token.isEmpty()) {
      return true;
    }
    String header = ctx.request().getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7) || header.substring(7).isBlank()) {
      json(ctx, 401, error("Authentication required: Authorization: Bearer <agent token>"));
      return false;
    }
    byte[] presented = header.substring(7).trim().getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(presented, token.getBytes(StandardCharsets.UTF_8))) {
      json(ctx, 403, error("Wrong token"));
      return false;
    }
    return true;
  }

  private static JsonObject error(String message) {
    return new JsonObject().put("error", message);
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    if (!ctx.response().ended()) {
      ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
    }
  }
}
