package dev.svc.server.simulator;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

/** Placeholder while the simulator is written in this session. */
public final class TestAgentSimulator extends VerticleBase {

  public TestAgentSimulator(dev.svc.server.http.ApiContext api) {
  }

  @Override
  public Future<?> start() {
    return Future.succeededFuture();
  }
}
