package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartCommandTest {

  @TempDir
  Path home;

  @Test
  void withoutAConfigurationStartSaysToRunInit() {
    Cli start = Cli.run("start", "--home", home.toString());
    assertThat(start.code()).isEqualTo(1);
    assertThat(start.err().strip()).startsWith("svc-agent start: No agent configuration at")
        .endsWith("run svc-agent init first");
  }

  @Test
  void aLiveAgentInThePidFileIsNotStartedTwice() throws Exception {
    new AgentConfig("https://127.0.0.1:8443", "", "twice", StatusCommandTest.freePort(), null, null, null, null, null, null,
        null, null).write(home.resolve("agent.yaml"));
    try (AgentLikeProcess agent = AgentLikeProcess.start()) {
      Files.writeString(home.resolve("agent.pid"), agent.pid() + "\n");
      for (String[] args : new String[][] {{"start", "--home", home.toString()},
          {"start", "--foreground", "--home", home.toString()}}) {
        Cli start = Cli.run(args);
        assertThat(start.code()).as(String.join(" ", args)).isEqualTo(1);
        assertThat(start.err()).contains("svc-agent is already running (pid " + agent.pid());
      }
      assertThat(Files.readString(home.resolve("agent.pid")).trim()).isEqualTo(Long.toString(agent.pid()));
      assertThat(agent.process().isAlive()).isTrue();
      assertThat(home.resolve("logs")).doesNotExist();
    }
  }

  @Test
  void theTailShowsWhatTheChildWroteSinceItStarted() throws Exception {
    Path log = home.resolve("agent.log");
    Files.writeString(log, "an older run\n");
    long from = Files.size(log);
    Files.writeString(log, "starting\nfailed: port in use\n", java.nio.file.StandardOpenOption.APPEND);
    assertThat(StartCommand.tail(log, from, 30)).isEqualTo("  starting\n  failed: port in use\n");
    assertThat(StartCommand.tail(log, from, 1)).isEqualTo("  failed: port in use\n");
  }

  @Test
  void theDetachedChildIsThisJvmRunningStartInTheForeground() {
    StartCommand command = new StartCommand();
    command.homeOptions = new HomeOptions(home.toString(), null);
    command.insecure = true;
    var line = command.childCommand(command.homeOptions.home());
    int java = StartCommand.setsid().isPresent() ? 1 : 0;
    assertThat(line.get(java)).isEqualTo(StartCommand.javaBinary());
    assertThat(line).containsSequence("-cp", System.getProperty("java.class.path"), "dev.svc.agent.AgentCommand",
        "start", "--foreground", "--daemon-child", "--home", home.toAbsolutePath().normalize().toString(),
        "--config", home.toAbsolutePath().normalize().resolve("agent.yaml").toString(), "--insecure");
    assertThat(line).noneMatch(word -> word.startsWith("-agentlib") || word.startsWith("-javaagent"));
  }
}
