package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.engines.fixtures.FaultCounts;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, acceptance 4: the server dies (SIGKILL) while an agent runs a benchmark and comes back
 * 20 s later; the agent, and then the agent itself killed between the benchmark's end and its
 * report. In both, the server ends with the result and every log line exactly once.
 */
class AgentCrashE2ETest {

  /** How long the server stays down: the 20 s (a scenario's duration, not a wait for a condition). */
  static final Duration OUTAGE = Duration.ofSeconds(20);

  @Test
  void aServerKilledDuringTheBenchmarkAndBack20sLaterGetsTheResultAndEveryLineOnce() throws Exception {
    try (ServerProcess server = ServerProcess.start();
        AgentProcess agent = Fixtures.realEngine(AgentProcess.enrol(server, "e2e-outage")).start()) {
      Path model = Fixtures.timingModel(agent.modelStorage().resolve("slow/slow.gguf"));
      JsonObject queued = Fixtures.quickTest(server, agent, model, "soak");
      String testId = queued.getString("id");
      Processes.await("log lines on the server", Duration.ofMinutes(2), () -> Fixtures.serverLines(server, testId).size() > 3);

      server.kill9();
      long deadline = System.nanoTime() + OUTAGE.toNanos();
      assertThat(agent.local(null).json().getBoolean("benchmark_active")).isTrue();
      Thread.sleep(Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
      assertThat(agent.isAlive()).isTrue();
      server.restart();

      JsonObject ended = Fixtures.awaitEnd(server, agent, testId, Duration.ofMinutes(5));
      List<String> stored = Fixtures.serverLines(server, testId);
      List<String> ran = localLines(agent, queued.getString("command_id"));
      int results = server.api().get("/api/v1/results?agent_id=" + agent.id()).json().getInteger("total");
      report("server killed mid-benchmark, back after " + OUTAGE.toSeconds() + " s", ended, ran, stored, results);
      assertThat(ended.getString("status")).as(ended.encode() + "\n" + agent.logTail()).isEqualTo("completed");
      assertThat(ended.getString("result_id")).isNotNull();
      assertThat(stored).isEqualTo(ran);
      assertThat(results).isEqualTo(1);
    }
  }

  @Test
  void anAgentKilledBetweenTheBenchmarksEndAndItsReportDeliversBothAfterItsRestart() throws Exception {
    try (ServerProcess server = ServerProcess.start();
        AgentProcess agent = Fixtures.realEngine(AgentProcess.enrol(server, "e2e-agent-crash")).start()) {
      Path model = Fixtures.tinyModel(agent.modelStorage().resolve("tiny/tiny.gguf"));
      JsonObject queued = Fixtures.quickTest(server, agent, model, "quick");
      String testId = queued.getString("id");
      Fixtures.awaitStatus(server, agent, testId, "running", Duration.ofMinutes(2));
      // the server goes away, so the report cannot leave the agent; the benchmark ends meanwhile
      server.kill9();
      Processes.await("the benchmark to end with its report spooled", Duration.ofMinutes(4),
          () -> !agent.local(null).json().getBoolean("benchmark_active") && spooled(agent) > 0);
      List<String> ranLines = localLines(agent, queued.getString("command_id"));
      agent.kill9();
      server.restart();
      agent.start();

      JsonObject ended = Fixtures.awaitEnd(server, agent, testId, Duration.ofMinutes(3));
      Processes.await("the spool to drain", Duration.ofSeconds(60), () -> spooled(agent) == 0);
      List<String> stored = Fixtures.serverLines(server, testId);
      int results = server.api().get("/api/v1/results?agent_id=" + agent.id()).json().getInteger("total");
      report("agent killed with its report spooled", ended, ranLines, stored, results);
      assertThat(ended.getString("status")).as(ended.encode() + "\n" + agent.logTail()).isEqualTo("completed");
      assertThat(ended.getString("result_id")).isNotNull();
      assertThat(stored).isEqualTo(ranLines);
      assertThat(results).isEqualTo(1);
    }
  }

  private static void report(String scenario, JsonObject ended, List<String> ran, List<String> stored, int results) {
    FaultCounts.of("AgentCrashE2ETest: " + scenario)
        .put("status", ended.getString("status"))
        .put("lines the benchmark printed", ran.size()).put("lines stored", stored.size())
        .put("stored in the printed order", stored.equals(ran) ? "yes" : "no")
        .put("results stored", results)
        .report();
  }

  /** The lines the agent's own stream has for a command (what the benchmark printed, as the agent saw it). */
  static List<String> localLines(AgentProcess agent, String commandId) {
    Http.Response local = agent.local("/api/logs/" + commandId);
    assertThat(local.status()).as(local.toString()).isEqualTo(200);
    return local.body().lines().filter(l -> l.startsWith("data: "))
        .map(l -> new JsonObject(l.substring(6)).getString("line")).collect(Collectors.toList());
  }

  /** Entries waiting in the agent's spool (one {@code <number>.json} file each). */
  static long spooled(AgentProcess agent) {
    Path spool = agent.home().resolve("spool");
    if (!Files.isDirectory(spool)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(spool)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".json")).count();
    } catch (IOException e) {
      return 0;
    }
  }
}
