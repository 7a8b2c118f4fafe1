package dev.svc.agent.engine;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

/** Runs one benchmark at a time (see {@link dev.svc.agent.AgentBus} for what it answers). */
public final class EngineLifecycleVerticle extends VerticleBase {

  private final AgentHome home;
  private final AgentConfig config;

  public EngineLifecycleVerticle(AgentHome home, AgentConfig config) {
    this.home = home;
    this.config = config;
  }

  @Override
  public Future<?> start() {
    return Future.succeededFuture();
  }
}
