package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StopCommandTest {

  @TempDir
  Path home;

  private Path pidFile() {
    return home.resolve("agent.pid");
  }

  @Test
  void withoutAPidFileTheAgentIsNotRunning() {
    Cli stop = Cli.run("stop", "--home", home.toString());
    assertThat(stop.code()).isZero();
    assertThat(stop.out()).contains("svc-agent is not running");
  }

  @Test
  void aStalePidFileIsRemovedAndNothingIsSignalled() throws Exception {
    Process sleep = new ProcessBuilder("sleep", "120").start();
    try {
      Files.writeString(pidFile(), sleep.pid() + "\n");
      Cli stop = Cli.run("stop", "--home", home.toString());
      assertThat(stop.code()).isZero();
      assertThat(stop.out()).contains("not running").contains("stale").contains("is not svc-agent");
      assertThat(pidFile()).doesNotExist();
      assertThat(sleep.isAlive()).as("a process that is not the agent is left alone").isTrue();
    } finally {
      sleep.destroyForcibly();
      sleep.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aLiveAgentGetsSigtermAndStopWaitsForItsExit() throws Exception {
    try (AgentLikeProcess agent = AgentLikeProcess.start()) {
      Files.writeString(pidFile(), agent.pid() + "\n");
      Cli stop = Cli.run("stop", "--home", home.toString());
      assertThat(stop.code()).isZero();
      assertThat(stop.out()).contains("svc-agent stopped (pid " + agent.pid() + ")");
      // stop returned after the exit: the process is gone now, not later
      assertThat(agent.process().isAlive()).isFalse();
      assertThat(agent.process().exitValue()).as("ended by SIGTERM").isEqualTo(143);
      assertThat(pidFile()).doesNotExist();
    }
  }

  @Test
  void aBadTimeoutIsAUsageMistake() {
    assertThat(Cli.run("stop", "--home", home.toString(), "--timeout", "0").code()).isEqualTo(2);
    assertThat(Cli.run("stop", "--home", home.toString(), "--timeout", "soon").code()).isEqualTo(2);
  }
}
