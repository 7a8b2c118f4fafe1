package dev.svc.it;

import dev.svc.agent.AgentBus;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.daemon.ControlVerticle;
import dev.svc.agent.hardware.HardwareProbe;
import dev.svc.agent.uplink.AgentIdentity;
import dev.svc.agent.uplink.ServerConnection;
import dev.svc.agent.uplink.UplinkVerticle;
import dev.svc.core.protocol.Registration;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.IssuedKeyPair;
import dev.svc.server.TestServer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * An agent's control plane and uplink (the verticles {@code svc-agent start} deploys, minus the
 * engine) in their own Vert.x in the test JVM, talking HTTPS with mutual TLS to an in-process
 * {@link TestServer} at an address the test chooses (a {@link FaultyLink} in front of it). The
 * test plays the engine: it takes the commands from {@link #commands()}, answers the engine-state
 * probe with what {@code engineState} gives, and sends logs, status and results as the engine does.
 */
final class LinkedAgent implements AutoCloseable {

  private final Path home;
  private final String id;
  private final String name;
  private final AgentConfig config;
  private final Vertx vertx = Vertx.vertx();
  private final LinkedBlockingQueue<JsonObject> commands = new LinkedBlockingQueue<>();
  private boolean closed;

  private LinkedAgent(Path home, String id, String name, AgentConfig config) {
    this.home = home;
    this.id = id;
    this.name = name;
    this.config = config;
  }

  /**
   * Provisions {@code name} on the server (heartbeats every 10 s) and gives it a client certificate
   * from the server's CA, to reach the server at {@code serverUrl}; {@link #start} starts it.
   */
  static LinkedAgent provision(TestServer server, Http api, Path home, String name, URI serverUrl) throws IOException {
    Http.Response provisioned = api.post("/api/v1/agents", new JsonObject().put("name", name));
    if (provisioned.status() != 201) {
      throw new AssertionError("Provisioning " + name + ": " + provisioned);
    }
    String id = provisioned.json().getString("agent_id");
    if (api.put("/api/v1/agents/" + id + "/settings", new JsonObject().put("heartbeat_interval_s", 10)).status() != 200) {
      throw new AssertionError("Could not set the heartbeat interval of " + name);
    }
    IssuedKeyPair identity = CertificateAuthority.loadOrCreate(server.home().certs()).issueClientKeyPair(name);
    Path certs = Files.createDirectories(home.resolve("certs"));
    Files.writeString(certs.resolve("agent.pem"), identity.certificatePem());
    Files.writeString(certs.resolve("agent.key"), identity.privateKeyPem());
    Files.copy(server.home().certs().resolve("ca.pem"), certs.resolve("ca.pem"));
    AgentConfig config = new AgentConfig(serverUrl.toString(), provisioned.json().getString("token"), name,
        dev.svc.engines.lifecycle.LoopbackPort.free(), null, home.resolve("models").toString(), "", "", null,
        new AgentConfig.Tls(certs.resolve("agent.pem").toString(), certs.resolve("agent.key").toString(),
            certs.resolve("ca.pem").toString()),
        home.resolve("no-nvidia-smi").toString(), null);
    return new LinkedAgent(home, id, name, config);
  }

  /** Starts the agent, its engine state being what {@code engineState} gives; returns once it registered. */
  LinkedAgent start(Supplier<JsonObject> engineState) throws Exception {
    deploy(config, engineState);
    return this;
  }

  private void deploy(AgentConfig config, Supplier<JsonObject> engineState) throws Exception {
    var bus = vertx.eventBus();
    bus.<JsonObject>consumer(AgentBus.ENGINE_COMMAND, m -> {
      commands.add(m.body());
      m.reply(new JsonObject().put("accepted", true));
    }).completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    bus.<JsonObject>consumer(AgentBus.ENGINE_STATE, m -> m.reply(engineState.get()))
        .completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    AgentHome agentHome = new AgentHome(home);
    AgentIdentity identity = new AgentIdentity(config.name());
    UplinkVerticle.ServerConnectionFactory connections = v -> ServerConnection.open(v, config, false);
    Registration registration = HardwareProbe.registration(agentHome, config);
    vertx.deployVerticle(new UplinkVerticle(agentHome.spool(), identity, connections))
        .compose(v -> vertx.deployVerticle(new ControlVerticle(agentHome, config, identity, registration, connections)))
        .toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS);
  }

  String id() {
    return id;
  }

  String name() {
    return name;
  }

  /** The commands the agent handed to its engine (the test), in order. */
  LinkedBlockingQueue<JsonObject> commands() {
    return commands;
  }

  /** Sends to the agent's bus as the engine does; returns once the uplink spooled it. */
  void send(String address, JsonObject body) throws Exception {
    vertx.eventBus().request(address, body).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** The entries waiting in the agent's spool. */
  List<String> spoolEntries() {
    Path spool = home.resolve("spool");
    if (!Files.isDirectory(spool)) {
      return List.of();
    }
    try (var files = Files.list(spool)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static JsonObject batch(JsonObject test, List<String> lines) {
    return new JsonObject().put("test_id", test.getString("id")).put("command_id", test.getString("command_id"))
        .put("lines", new JsonArray(new ArrayList<>(lines)));
  }

  static JsonObject status(JsonObject test, String status) {
    return new JsonObject().put("test_id", test.getString("id")).put("command_id", test.getString("command_id"))
        .put("status", status);
  }

  static JsonObject result(JsonObject test, JsonObject metrics) {
    return new JsonObject().put("command_id", test.getString("command_id")).put("test_id", test.getString("id"))
        .put("status", "completed").putNull("error").put("result_data", metrics);
  }

  /** Stops the verticles (a clean agent stop); the spool stays on disk. */
  @Override
  public void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
