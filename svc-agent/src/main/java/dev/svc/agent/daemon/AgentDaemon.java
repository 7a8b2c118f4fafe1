package dev.svc.agent.daemon;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import io.vertx.core.Future;

/**
 * The running agent: one Vert.x instance with the control, log-server and engine-lifecycle
 * verticles. {@link #start} returns once all three are deployed (registered, serving).
 */
public final class AgentDaemon {

  private AgentDaemon() {
  }

  /** Starts the daemon; the future fails when it cannot start (config, port, server refusing). */
  public static Future<AgentDaemon> start(AgentHome home, AgentConfig config, boolean insecure) {
    return Future.failedFuture("not built yet");
  }

  /** Stops it: cancels a running benchmark (its container or process is removed), closes Vert.x. */
  public Future<Void> stop() {
    return Future.succeededFuture();
  }

  /** Completes when the daemon has stopped, by {@link #stop} or a fatal error. */
  public Future<Void> stopped() {
    return Future.succeededFuture();
  }
}
