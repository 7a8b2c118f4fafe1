package dev.svc.perf.fleet;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Creates quick tests through the API at {@code --tests-per-minute}, each for an idle agent of the
 * fleet picked at random, so that the time from queued to dispatched can be measured: the agent
 * notes when its test was asked for (just before the create request, so the delay counted is at most
 * the real one plus that request's time) and records the delay when the {@code run_test} arrives.
 */
final class TestFeeder {

  private static final List<String> MODELS = List.of("/models/Llama-3.1-8B-Instruct", "/models/Qwen2.5-7B-Instruct",
      "/models/Mistral-7B-Instruct-v0.3");
  private static final int PICKS = 32;

  private final FleetRun run;
  private final OperatorApi api;
  private final VirtualAgent[] agents;
  private long timer = -1;

  TestFeeder(FleetRun run, OperatorApi api, VirtualAgent[] agents) {
    this.run = run;
    this.api = api;
    this.agents = agents;
  }

  /** Starts on the caller's event loop. */
  void start() {
    long everyMs = Math.max(1, Math.round(60_000 / run.options.testsPerMinute()));
    timer = run.vertx.setPeriodic(everyMs, everyMs, t -> createOne());
  }

  void stop() {
    run.vertx.cancelTimer(timer);
  }

  private void createOne() {
    VirtualAgent agent = pickIdle();
    if (agent == null) {
      run.stats.testsSkipped.increment();
      return;
    }
    long requested = System.nanoTime();
    if (!agent.testRequested.compareAndSet(0, requested)) {
      return;
    }
    JsonObject body = new JsonObject().put("agent_id", agent.agentId)
        .put("model_path", MODELS.get(ThreadLocalRandom.current().nextInt(MODELS.size())))
        .put("engine_name", "vllm").put("benchmark_name", "throughput").put("suite_name", "quick").put("force", true);
    api.call("create test", HttpMethod.POST, "/api/v1/quicktest", run.options.token(), body).onComplete(ar -> {
      if (ar.succeeded() && ar.result().status() == 202) {
        try {
          run.created.add(CreatedResource.parse(ar.result().json()).id());
          run.stats.testsCreated.increment();
          return;
        } catch (BadMessage e) {
          run.stats.error("create test: malformed answer");
        }
      } else if (ar.succeeded()) {
        run.stats.error("create test: HTTP " + ar.result().status());
      }
      agent.testRequested.compareAndSet(requested, 0);
    });
  }

  private VirtualAgent pickIdle() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < PICKS; i++) {
      VirtualAgent agent = agents[random.nextInt(agents.length)];
      if (agent.idle && agent.testRequested.get() == 0) {
        return agent;
      }
    }
    return null;
  }
}
