package dev.svc.agent.daemon;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.engine.EngineLifecycleVerticle;
import dev.svc.agent.hardware.HardwareProbe;
import dev.svc.agent.logs.LogServerVerticle;
import dev.svc.agent.uplink.AgentIdentity;
import dev.svc.agent.uplink.ServerConnection;
import dev.svc.agent.uplink.Servers;
import dev.svc.agent.uplink.UplinkVerticle;
import dev.svc.core.protocol.Registration;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running agent: one Vert.x instance with the uplink (the spool's drain), the control, the
 * log-server and the engine-lifecycle verticles, deployed in that order, which is the mission's
 * startup sequence: configuration (given), hardware detection, registration, heartbeats, the
 * agent's HTTPS API. The uplink comes first so that what an earlier run left in the spool is sent
 * even while the server does not answer the registration yet. {@link #start} returns once all are
 * deployed (registered, serving).
 */
public final class AgentDaemon {

  private static final Logger LOG = LoggerFactory.getLogger(AgentDaemon.class);

  private final Vertx vertx;
  private final AgentIdentity identity;
  private final Deque<String> deployments = new ArrayDeque<>();
  private final Promise<Void> stopped = Promise.promise();
  private LogServerVerticle logServer;
  private boolean stopping;

  private AgentDaemon(Vertx vertx, AgentIdentity identity) {
    this.vertx = vertx;
    this.identity = identity;
  }

  /** Starts the daemon; the future fails when it cannot start (config, port, server refusing). */
  public static Future<AgentDaemon> start(AgentHome home, AgentConfig config, boolean insecure) {
    Vertx vertx = Vertx.vertx();
    AgentDaemon daemon = new AgentDaemon(vertx, new AgentIdentity(config.name()));
    // one current node for all: heartbeats and the spool go where the other found an answer
    Servers servers = new Servers(config.serverUris());
    UplinkVerticle.ServerConnectionFactory connections = v -> ServerConnection.open(v, config, servers, insecure);
    Future<AgentDaemon> started = vertx.executeBlocking(() -> HardwareProbe.registration(home, config))
        .compose(registration -> daemon.deployAll(home, config, registration, servers, connections))
        .map(v -> daemon);
    return started.recover(err -> {
      LOG.error("Agent did not start: {}", err.getMessage());
      return daemon.stop().transform(ignored -> Future.failedFuture(err));
    });
  }

  private Future<Void> deployAll(AgentHome home, AgentConfig config, Registration registration, Servers servers,
      UplinkVerticle.ServerConnectionFactory connections) {
    LOG.info("Hardware: {}, {} GPU(s) {}, {} GB RAM, {}", registration.cpuInfo(), registration.gpuCount(),
        registration.gpuInfo(), registration.ramGb(), registration.environmentType());
    logServer = new LogServerVerticle(home, config, servers);
    return deploy(new UplinkVerticle(home.spool(), identity, connections))
        .compose(v -> deploy(new ControlVerticle(home, config, identity, registration, connections)))
        .compose(v -> deploy(logServer))
        .compose(v -> deploy(new EngineLifecycleVerticle(home, config)));
  }

  private Future<Void> deploy(io.vertx.core.Deployable verticle) {
    if (stopping) {
      return Future.failedFuture("stopping");
    }
    return vertx.deployVerticle(verticle).map(id -> {
      deployments.push(id);
      return null;
    });
  }

  /** The id the server knows this agent by (null before the first registration). */
  public String agentId() {
    return identity.agentId();
  }

  /** The port the agent's API listens on. */
  public int apiPort() {
    return logServer.actualPort();
  }

  /** Stops it: the engine cancels a running benchmark (its container or process is removed), then Vert.x closes. */
  public Future<Void> stop() {
    if (stopping) {
      return stopped.future();
    }
    stopping = true;
    // newest first: the engine goes before the uplink that takes its last reports
    Future<Void> chain = Future.succeededFuture();
    while (!deployments.isEmpty()) {
      String id = deployments.pop();
      chain = chain.compose(v -> vertx.undeploy(id).recover(err -> {
        LOG.warn("Undeploying {} failed: {}", id, err.getMessage());
        return Future.succeededFuture();
      }));
    }
    chain.compose(v -> vertx.close()).onComplete(ar -> stopped.tryComplete());
    return stopped.future();
  }

  /** Completes when the daemon has stopped, by {@link #stop} or a fatal error. */
  public Future<Void> stopped() {
    return stopped.future();
  }
}
