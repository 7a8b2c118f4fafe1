package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.logs.AgentStatusAnswer;
import dev.svc.agent.logs.HostAddress;
import dev.svc.agent.logs.LogServerVerticle;
import dev.svc.agent.uplink.Servers;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
  void statusReachesAnAgentBoundToOneAddressThereWithItsToken() throws Exception {
    // a non-loopback address makes the agent ask for the token; 127.0.0.2 still shows the address is used
    String address = HostAddress.nonLoopbackIpv4().orElse("127.0.0.2");
    AgentConfig config = new AgentConfig("https://127.0.0.1:8443", TOKEN, "bound-agent", freePort(), address, null, null,
        null, null, new AgentConfig.Tls("unused", "unused", "unused"), null, null);
    config.write(home.resolve("agent.yaml"));
    Vertx vertx = Vertx.vertx();
    try {
      vertx.deployVerticle(new LogServerVerticle(new AgentHome(home), config)).toCompletionStage().toCompletableFuture()
          .get(30, TimeUnit.SECONDS);
      Cli status = Cli.run("status", "--home", home.toString());
      assertThat(status.code()).as(status.err()).isZero();
      assertThat(status.out()).contains("Agent:", "running as bound-agent").contains("Bind:", address)
          .contains("https://" + address + ":" + config.port() + "/api/status").contains("Benchmark:", "idle")
          .contains("Current test:", "(none)")
          .containsPattern("Storage: +free \\d+\\.\\d GB, used \\d+\\.\\d GB, \\d+ models");
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void statusListsTheServersAndMarksTheOneTheRunningAgentTalksTo() throws Exception {
    AgentConfig config = new AgentConfig("https://svc-1.lab:8443,https://svc-2.lab:8443", TOKEN, "cluster-agent",
        freePort(), null, null, null, null, null, new AgentConfig.Tls("unused", "unused", "unused"), null, null);
    config.write(home.resolve("agent.yaml"));
    Cli stopped = Cli.run("status", "--home", home.toString());
    assertThat(stopped.code()).isNotZero();
    assertThat(stopped.out()).contains("Server:", "https://svc-1.lab:8443, https://svc-2.lab:8443")
        .doesNotContain("(current)");

    Servers servers = new Servers(config.serverUris());
    // the first node refused a connection: the agent went on to the second
    servers.failed(config.serverUris().get(0), new ConnectException("Connection refused"));
    Vertx vertx = Vertx.vertx();
    try {
      vertx.deployVerticle(new LogServerVerticle(new AgentHome(home), config, servers)).await(30, TimeUnit.SECONDS);
      Cli status = Cli.run("status", "--home", home.toString());
      assertThat(status.code()).as(status.err()).isZero();
      assertThat(status.out()).contains("Server:", "https://svc-1.lab:8443, https://svc-2.lab:8443 (current)");
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void storageFiguresShowAsTheAgentReportedThem() {
    assertThat(StatusCommand.storage(new AgentStatusAnswer.Storage(812.25, 0.0, 3)))
        .isEqualTo("free 812.3 GB, used 0.0 GB, 3 models");
    assertThat(StatusCommand.storage(AgentStatusAnswer.Storage.UNKNOWN)).isEqualTo("free ? GB, used ? GB, ? models");
    assertThat(StatusCommand.storage(null)).isEqualTo("(not reported)");
  }

  @Test
  void theTokenIsNeverShownWhole() {
    assertThat(StatusCommand.tokenShown(TOKEN)).isEqualTo("01234567…");
    assertThat(StatusCommand.tokenShown("short")).doesNotContain("short");
    assertThat(StatusCommand.tokenShown("")).isEqualTo("(none)");
  }
}
