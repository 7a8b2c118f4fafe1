package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.model.Container;
import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.engines.fixtures.LlamaServerImage;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, fault 2: dockerd killed (SIGKILL) in the middle of a benchmark on a real agent, whose
 * engine runs in a container: the agent's default path, its own {@code svc run} starting
 * llama.cpp's container. The Docker engine is a private one ({@link PrivateDockerd}), the agent
 * pointed at it with {@code DOCKER_HOST}.
 */
class DockerdKillE2ETest {

  /** From the kill to the test failed on the server: the watch's 3 s, svc run's exit, the report; far below any timeout. */
  static final Duration BOUND = Duration.ofSeconds(60);

  @Test
  void dockerdKilledMidBenchmarkFailsTheTestLeavesNothingOnceBackAndTheAgentTakesTheNextTest() throws Exception {
    // the model's file name marks this test's engine process (its command line names it)
    String marker = "dockerd-fault-" + Long.toHexString(System.nanoTime());
    try (PrivateDockerd dockerd = PrivateDockerd.start();
        ServerProcess server = ServerProcess.start();
        AgentProcess agent = Fixtures.realEngine(AgentProcess.enrol(server, "e2e-dockerd-kill"))
            .environment("DOCKER_HOST", dockerd.host())) {
      dockerd.load(LlamaServerImage.TAG);
      Path model = Fixtures.timingModel(agent.modelStorage().resolve(marker + "/" + marker + ".gguf"));
      // queued before the agent starts: its first heartbeat takes it
      String testId = Fixtures.quickTest(server, agent, model, "soak").getString("id");
      agent.start();
      Processes.await("the benchmark to run", Duration.ofMinutes(3),
          () -> Fixtures.serverLines(server, testId).stream().anyMatch(l -> l.startsWith("[1/1] ")));
      List<Container> engines = dockerd.containers();
      assertThat(engines).as("the engine container, on the private dockerd").hasSize(1);
      assertThat(engines.get(0).getImage()).isEqualTo(LlamaServerImage.TAG);
      assertThat(PrivateDockerd.processesWith(marker)).as("the engine process").isNotEmpty();

      dockerd.kill9();
      long killed = System.nanoTime();
      JsonObject ended = Fixtures.awaitEnd(server, agent, testId, BOUND.plusSeconds(30));
      Duration toFailed = Duration.ofNanos(System.nanoTime() - killed);
      boolean agentAlive = agent.isAlive();
      int enginesWhileDown = PrivateDockerd.processesWith(marker).size();

      dockerd.restart();
      Processes.await("no container left on the private dockerd", Duration.ofSeconds(60), () -> {
        try {
          return dockerd.containers().isEmpty();
        } catch (Exception e) {
          return false;
        }
      });
      Processes.await("no engine process left", Duration.ofSeconds(30), () -> PrivateDockerd.processesWith(marker).isEmpty());

      // the agent takes the next test, on the Docker engine that came back
      Path next = Fixtures.tinyModel(agent.modelStorage().resolve(marker + "-next/tiny.gguf"));
      String nextId = Fixtures.quickTest(server, agent, next, "quick").getString("id");
      JsonObject nextEnded = Fixtures.awaitEnd(server, agent, nextId, Duration.ofMinutes(4));
      List<String> nextLines = Fixtures.serverLines(server, nextId);
      int containersAfter = dockerd.containers().size();

      String error = String.valueOf(ended.getString("error"));
      FaultCounts.of("DockerdKillE2ETest: dockerd killed mid-benchmark (engine container, local svc run)")
          .put("tests_queued", 2).put("failed", "failed".equals(ended.getString("status")) ? 1 : 0)
          .put("completed", "completed".equals(nextEnded.getString("status")) ? 1 : 0)
          .put("engine_processes_while_docker_down", enginesWhileDown)
          .put("containers_left_after_restart", 0).put("engine_processes_left_after_restart", 0)
          .put("containers_left_after_next_test", containersAfter).put("agent_alive", agentAlive ? 1 : 0)
          .put("ms_to_failed", toFailed.toMillis()).report();

      assertThat(ended.getString("status")).as(ended.encode()).isEqualTo("failed");
      assertThat(error).as(ended.encode()).contains("Docker stopped answering at " + dockerd.host())
          .contains("during the benchmark").doesNotContain("Exception").doesNotContain("\tat ");
      assertThat(Fixtures.serverLines(server, testId)).as("no stack trace in the test's log")
          .noneMatch(l -> l.startsWith("\tat ") || l.contains("Unhandled exception") || l.contains("org.apache.hc"));
      assertThat(toFailed).isLessThan(BOUND);
      assertThat(agentAlive).isTrue();
      assertThat(nextEnded.getString("status")).as(nextEnded.encode() + "\n" + agent.logTail()).isEqualTo("completed");
      assertThat(nextEnded.getString("result_id")).isNotNull();
      assertThat(String.join("\n", nextLines)).contains(LlamaServerImage.TAG);
      assertThat(containersAfter).isZero();
    }
  }
}
