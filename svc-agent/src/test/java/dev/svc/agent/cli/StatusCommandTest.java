package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusCommandTest {

  private static final String TOKEN = "0123456789abcdef".repeat(4);

  @TempDir
  Path home;

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void withoutAConfigurationStatusSaysToRunInit() {
    Cli status = Cli.run("status", "--home", home.toString());
    assertThat(status.code()).isEqualTo(1);
    assertThat(status.err().strip()).startsWith("svc-agent status: No agent configuration at")
        .endsWith("run svc-agent init first").doesNotContain("\n");
  }

  @Test
  void anAgentThatIsNotRunningExitsThreeAndTheTokenShowsOnlyItsPrefix() throws IOException {
    int port = freePort();
    new AgentConfig("https://127.0.0.1:8443", TOKEN, "status-agent", port, null, "~/models", "nfs:/models", "/mnt/models",
        null, null, null, null).write(home.resolve("agent.yaml"));
    Cli status = Cli.run("status", "--home", home.toString());
    assertThat(status.code()).isEqualTo(StatusCommand.NOT_RUNNING);
    assertThat(status.out()).contains("Server:", "https://127.0.0.1:8443").contains("status-agent")
        .contains("Port:", Integer.toString(port)).contains("nfs:/models on /mnt/models").contains("01234567…")
        .contains("Agent:", "not running").doesNotContain(TOKEN).doesNotContain("012345678");
  }

  @Test
  void theTokenIsNeverShownWhole() {
    assertThat(StatusCommand.tokenShown(TOKEN)).isEqualTo("01234567…");
    assertThat(StatusCommand.tokenShown("short")).doesNotContain("short");
    assertThat(StatusCommand.tokenShown("")).isEqualTo("(none)");
  }
}
