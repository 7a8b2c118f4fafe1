package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The agent's day-to-day commands as a user types them, against a real `svc web` over HTTPS with a
 * global token: `start` detaches, `status` and `stop` find the agent by its PID file and its local
 * API, `test list` and `test stop` talk to the server with the agent's own token.
 */
class AgentCliE2ETest extends WithServer {

  @Test
  void startDetachesStatusFindsTheAgentAndStopEndsIt() throws Exception {
    AgentProcess agent = AgentProcess.enrol(server, "cli-daemon");
    Path pidFile = agent.home().resolve("agent.pid");
    try {
      Processes.Run start = agent.cli("start");
      // start returned: the agent lives on detached, under the id in its PID file
      assertThat(start.exit()).as(start + "\n" + agent.logTail()).isZero();
      long pid = Long.parseLong(Files.readString(pidFile).trim());
      assertThat(start.stdout()).contains("svc-agent started: pid " + pid).contains("agent.log");
      ProcessHandle daemon = ProcessHandle.of(pid).orElseThrow();
      assertThat(daemon.isAlive()).isTrue();
      assertThat(daemon.parent().map(ProcessHandle::pid)).as("detached: not a child of the start command's JVM")
          .isNotEqualTo(Optional.of(ProcessHandle.current().pid()));
      assertThat(agent.home().resolve("logs/agent.log")).isNotEmptyFile();

      Processes.Run again = agent.cli("start");
      assertThat(again.exit()).isEqualTo(1);
      assertThat(again.stderr()).contains("already running (pid " + pid);

      Processes.Run status = agent.cli("status");
      assertThat(status.exit()).as(status.toString()).isZero();
      assertThat(status.stdout()).contains("cli-daemon").contains("running").contains(server.url().toString())
          .contains("Benchmark:").contains(agent.token().substring(0, 8)).doesNotContain(agent.token());

      Processes.Run stop = agent.cli("stop");
      assertThat(stop.exit()).as(stop.toString()).isZero();
      assertThat(stop.stdout()).contains("svc-agent stopped (pid " + pid + ")");
      // stop waits for the exit: gone when it returns
      assertThat(daemon.isAlive()).isFalse();
      assertThat(pidFile).doesNotExist();

      Processes.Run after = agent.cli("status");
      assertThat(after.exit()).as(after.toString()).isEqualTo(3);
      assertThat(after.stdout()).contains("not running");
      Processes.Run stopAgain = agent.cli("stop");
      assertThat(stopAgain.exit()).isZero();
      assertThat(stopAgain.stdout()).contains("not running");
    } finally {
      killLeftover(pidFile);
      agent.close();
    }
  }

  @Test
  void testListShowsThisAgentsTestsOnly() {
    AgentProcess first = AgentProcess.enrol(server, "cli-list-a");
    AgentProcess second = AgentProcess.enrol(server, "cli-list-b");
    try {
      // the agents are not running: their tests stay queued
      String a1 = queue(first, "/models/a1.gguf");
      String a2 = queue(first, "/models/a2.gguf");
      String b1 = queue(second, "/models/b1.gguf");

      Processes.Run list = first.cli("test", "list");
      assertThat(list.exit()).as(list.toString()).isZero();
      String[] lines = list.stdout().split("\n");
      assertThat(lines[0]).startsWith("ID").contains("STATUS", "ENGINE", "MODEL", "CREATED", "ERROR");
      assertThat(list.stdout()).contains(a1, a2, "/models/a1.gguf", "llama_cpp", "queued").doesNotContain(b1);
      assertThat(lines).hasSize(3);
      assertThat(java.util.List.of(lines[1].split(" ")[0], lines[2].split(" ")[0])).containsExactlyInAnyOrder(a1, a2);

      Processes.Run limited = first.cli("test", "list", "--limit", "1");
      assertThat(limited.stdout().split("\n")).hasSize(2);
      Processes.Run none = first.cli("test", "list", "--status", "running");
      assertThat(none.exit()).isZero();
      assertThat(none.stdout()).contains("No tests running");

      Processes.Run other = second.cli("test", "list");
      assertThat(other.stdout()).contains(b1).doesNotContain(a1).doesNotContain(a2);
    } finally {
      first.close();
      second.close();
    }
  }

  @Test
  void testStopOfAQueuedTestMarksItFailedCancelledByUserOnTheServer() {
    AgentProcess agent = AgentProcess.enrol(server, "cli-stop-queued");
    AgentProcess other = AgentProcess.enrol(server, "cli-stop-other");
    try {
      String testId = queue(agent, "/models/queued.gguf");
      String othersTest = queue(other, "/models/other.gguf");

      // another agent's token cannot stop it
      Processes.Run foreign = other.cli("test", "stop", testId);
      assertThat(foreign.exit()).as(foreign.toString()).isEqualTo(1);
      assertThat(foreign.stderr()).contains("HTTP 403");
      assertThat(Fixtures.test(server, testId).getString("status")).isEqualTo("queued");

      Processes.Run stop = agent.cli("test", "stop", testId);
      assertThat(stop.exit()).as(stop.toString()).isZero();
      assertThat(stop.stdout()).contains("the local agent is not running").contains("Cancelled test " + testId);
      JsonObject test = Fixtures.test(server, testId);
      assertThat(test.getString("status")).isEqualTo("failed");
      assertThat(test.getString("error")).isEqualTo("Cancelled by user");
      assertThat(Fixtures.test(server, othersTest).getString("status")).isEqualTo("queued");

      Processes.Run twice = agent.cli("test", "stop", testId);
      assertThat(twice.exit()).isEqualTo(1);
      assertThat(twice.stderr().strip()).startsWith("svc-agent test stop: the server refused to cancel " + testId)
          .contains("HTTP 409").doesNotContain("\n");
    } finally {
      agent.close();
      other.close();
    }
  }

  private static String queue(AgentProcess agent, String model) {
    Http.Response created = server.api().post("/api/v1/quicktest", new JsonObject().put("agent_id", agent.id())
        .put("model_path", model).put("engine_name", "llama_cpp"));
    assertThat(created.status()).as(created.toString()).isEqualTo(202);
    return created.json().getString("id");
  }

  /** A detached agent outlives this JVM unless stopped: end it when a test failed before its stop. */
  private static void killLeftover(Path pidFile) {
    try {
      if (Files.isRegularFile(pidFile)) {
        ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim())).ifPresent(p -> {
          p.destroy();
          p.onExit().orTimeout(40, java.util.concurrent.TimeUnit.SECONDS).exceptionally(t -> {
            p.destroyForcibly();
            return p;
          }).join();
        });
      }
    } catch (Exception e) {
      throw new IllegalStateException("Could not end the detached agent of " + pidFile, e);
    }
  }
}
