package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code svc-agent init} against a plain-HTTP server URL, which needs no server: what lands in agent.yaml. */
class InitCommandTest {

  @TempDir
  Path home;

  private Cli init(String... extra) {
    List<String> args = new ArrayList<>(List.of("init", "--home", home.toString(), "--server", "http://127.0.0.1:1",
        "--name", "init-agent"));
    args.addAll(List.of(extra));
    return Cli.run(args.toArray(String[]::new));
  }

  private AgentConfig written() {
    return AgentConfig.load(home.resolve("agent.yaml"));
  }

  @Test
  void theApiBindsToLoopbackUnlessInitIsToldOtherwise() {
    assertThat(init().code()).isZero();
    assertThat(written().bind()).isEqualTo("127.0.0.1");
    assertThat(init("--force", "--bind", "0.0.0.0").code()).isZero();
    assertThat(written().bind()).isEqualTo("0.0.0.0");
  }

  @Test
  void aBindThatIsNoAddressIsAUsageErrorAndWritesNothing() {
    Cli init = init("--bind", "0.0.0.0:8090");
    assertThat(init.code()).isEqualTo(2);
    assertThat(init.err()).contains("--bind must be an IP address").contains("'0.0.0.0:8090'");
    assertThat(home.resolve("agent.yaml")).doesNotExist();
  }
}
