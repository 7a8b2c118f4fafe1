package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PidFileTest {

  @TempDir
  Path home;

  @Test
  void acquireWritesThisProcessAndReleaseRemovesOnlyItsOwnFile() throws Exception {
    PidFile pid = new PidFile(home.resolve("agent.pid"));
    pid.acquire();
    long self = ProcessHandle.current().pid();
    assertThat(Files.readString(pid.file()).trim()).isEqualTo(Long.toString(self));
    assertThat(pid.liveAgent()).map(ProcessHandle::pid).contains(self);
    assertThat(pid.releaseIfOwnedBy(self + 1)).isFalse();
    assertThat(pid.file()).exists();
    assertThat(pid.releaseIfOwnedBy(self)).isTrue();
    assertThat(pid.file()).doesNotExist();
    assertThat(home).isEmptyDirectory(); // no temporary file left behind
  }

  @Test
  void aFileNamingADeadProcessIsStaleAndReplaced() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
    PidFile pid = new PidFile(home.resolve("agent.pid"));
    Files.writeString(pid.file(), gone.pid() + "\n");
    assertThat(pid.liveAgent()).isEmpty();
    pid.acquire();
    assertThat(pid.read()).hasValue(ProcessHandle.current().pid());
  }

  @Test
  void aLiveProcessThatIsNotAnAgentDoesNotCount() throws Exception {
    Process sleep = new ProcessBuilder("sleep", "120").start();
    try {
      PidFile pid = new PidFile(home.resolve("agent.pid"));
      Files.writeString(pid.file(), sleep.pid() + "\n");
      assertThat(PidFile.isAgentProcess(sleep.toHandle())).isFalse();
      assertThat(pid.liveAgent()).isEmpty();
      pid.acquire();
      assertThat(pid.read()).hasValue(ProcessHandle.current().pid());
      assertThat(sleep.isAlive()).isTrue();
    } finally {
      sleep.destroyForcibly();
      sleep.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aLiveAgentHoldsTheFile() throws Exception {
    try (AgentLikeProcess agent = AgentLikeProcess.start()) {
      PidFile pid = new PidFile(home.resolve("agent.pid"));
      Files.writeString(pid.file(), agent.pid() + "\n");
      assertThat(PidFile.isAgentProcess(agent.process().toHandle())).isTrue();
      assertThatThrownBy(pid::acquire).isInstanceOf(PidFile.AlreadyRunning.class)
          .hasMessageContaining("already running (pid " + agent.pid());
      assertThat(pid.read()).hasValue(agent.pid());
    }
  }

  @Test
  void garbageIsNoPid() throws Exception {
    PidFile pid = new PidFile(home.resolve("agent.pid"));
    assertThat(pid.read()).isEmpty();
    Files.writeString(pid.file(), "not a number\n");
    assertThat(pid.read()).isEmpty();
    assertThat(pid.liveAgent()).isEmpty();
  }
}
