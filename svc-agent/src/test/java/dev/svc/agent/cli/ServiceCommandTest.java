package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceCommandTest {

  @TempDir
  Path temp;

  private Path home;
  private Path units;
  private String appHome;

  @BeforeEach
  void configure() {
    home = temp.resolve("agent home");
    units = temp.resolve("units");
    new AgentConfig("https://127.0.0.1:8443", "", "GPU Node_7", 8091, null, null, null, null, null, null, null, null)
        .write(home.resolve("agent.yaml"));
    appHome = System.getProperty("svc.app.home");
  }

  @AfterEach
  void restore() {
    if (appHome == null) {
      System.clearProperty("svc.app.home");
    } else {
      System.setProperty("svc.app.home", appHome);
    }
  }

  /** This checkout: its bin/svc-agent is the launcher an installed agent's unit runs. */
  private static Path checkout() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isExecutable(dir.resolve("bin").resolve("svc-agent"))) {
        return dir;
      }
    }
    throw new AssertionError("bin/svc-agent not found above " + Path.of("").toAbsolutePath());
  }

  @Test
  void installWritesAUnitThatSystemdAnalyzeAccepts() throws Exception {
    System.setProperty("svc.app.home", checkout().toString());
    Cli install = Cli.run("service", "install", "--home", home.toString(), "--unit-dir", units.toString(),
        "--no-systemctl");
    assertThat(install.code()).isZero();
    // not the default home: the unit is named after the agent, so that a second agent can have its own
    Path unit = units.resolve("svc-agent-gpu-node_7.service");
    assertThat(install.out()).contains("Wrote " + unit);
    String text = Files.readString(unit);
    assertThat(text).contains("\nRestart=on-failure\n", "\nRestartSec=5\n", "\nWantedBy=multi-user.target\n",
        "\nUser=" + System.getProperty("user.name") + "\n", "\nSuccessExitStatus=143\n");
    assertThat(text).contains("\nExecStart=" + checkout().resolve("bin/svc-agent") + " start --foreground --home \""
        + home + "\"\n");

    Process verify = new ProcessBuilder("systemd-analyze", "verify", unit.toString()).redirectErrorStream(true).start();
    String output = new String(verify.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(verify.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(verify.exitValue()).as("systemd-analyze verify: %s", output).isZero();
    assertThat(output).as("systemd-analyze has no complaint about the unit").doesNotContain(unit.getFileName().toString());
  }

  @Test
  void withoutALauncherTheUnitRunsThisJavaWithItsClasspath() throws Exception {
    System.clearProperty("svc.app.home");
    Cli print = Cli.run("service", "install", "--home", home.toString(), "--print", "--insecure");
    assertThat(print.code()).isZero();
    String exec = print.out().lines().filter(l -> l.startsWith("ExecStart=")).findFirst().orElseThrow();
    assertThat(exec).startsWith("ExecStart=" + StartCommand.javaBinary() + " -cp ")
        .contains(" dev.svc.agent.AgentCommand start --foreground --home ").endsWith(" --insecure");
    Path unit = temp.resolve("svc-agent-printed.service");
    Files.writeString(unit, print.out());
    Process verify = new ProcessBuilder("systemd-analyze", "verify", unit.toString()).redirectErrorStream(true).start();
    String output = new String(verify.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(verify.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(verify.exitValue()).as("systemd-analyze verify: %s", output).isZero();
    assertThat(output).doesNotContain(unit.getFileName().toString());
    assertThat(units).doesNotExist();
  }

  @Test
  void whereSystemdIsAbsentInstallSaysSoAndWritesNothing() {
    Cli install = Cli.run("service", "install", "--home", home.toString(), "--unit-dir", units.toString(),
        "--systemd-runtime", temp.resolve("no-systemd").toString());
    assertThat(install.code()).isEqualTo(1);
    assertThat(install.err().strip()).startsWith("svc-agent service install: systemd is not running on this host")
        .doesNotContain("\n");
    assertThat(units).doesNotExist();
    assertThat(Cli.run("service", "status", "--home", home.toString(), "--systemd-runtime",
        temp.resolve("no-systemd").toString()).code()).isEqualTo(1);
    assertThat(Cli.run("service", "uninstall", "--home", home.toString(), "--systemd-runtime",
        temp.resolve("no-systemd").toString()).code()).isEqualTo(1);
  }

  @Test
  void uninstallRemovesTheUnit() throws IOException {
    assertThat(Cli.run("service", "install", "--home", home.toString(), "--unit-dir", units.toString(),
        "--no-systemctl").code()).isZero();
    assertThat(Cli.run("service", "status", "--home", home.toString(), "--unit-dir", units.toString(),
        "--no-systemctl").code()).isZero();
    Cli uninstall = Cli.run("service", "uninstall", "--home", home.toString(), "--unit-dir", units.toString(),
        "--no-systemctl");
    assertThat(uninstall.code()).isZero();
    try (var left = Files.list(units)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void theDefaultHomeHasThePlainUnitName() {
    assertThat(SystemdUnit.unitName(true, "anything")).isEqualTo("svc-agent.service");
    assertThat(SystemdUnit.unitName(false, "GPU Node 7")).isEqualTo("svc-agent-gpu-node-7.service");
    assertThat(SystemdUnit.unitName(false, "../..")).isEqualTo("svc-agent-agent.service");
  }

  @Test
  void execStartQuotesWhatSystemdWouldSplitOrExpand() {
    assertThat(SystemdUnit.commandLine(List.of("/opt/svc/bin/svc-agent", "--home", "/srv/a b", "50%", "$HOME")))
        .isEqualTo("/opt/svc/bin/svc-agent --home \"/srv/a b\" 50%% $$HOME");
  }

  @Test
  void withoutASubcommandServiceIsAUsageMistake() {
    assertThat(Cli.run("service").code()).isEqualTo(2);
  }
}
