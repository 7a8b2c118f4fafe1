package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code svc-agent init} against a plain-HTTP server URL, which needs no server: what lands in agent.yaml. */
class InitCommandTest {

  @TempDir
  Path home;

  private static final String TOKEN = "f00d".repeat(16);

  private List<String> args(String... extra) {
    List<String> args = new ArrayList<>(List.of("--home", home.toString(), "--server", "http://127.0.0.1:1",
        "--name", "init-agent"));
    args.addAll(List.of(extra));
    return args;
  }

  private Cli init(String... extra) {
    List<String> args = args(extra);
    args.add(0, "init");
    return Cli.run(args.toArray(String[]::new));
  }

  /** {@code svc-agent init} in an environment of {@code variables} only. */
  private Cli initWith(Map<String, String> variables, String... extra) {
    InitCommand command = new InitCommand();
    command.env = variables::get;
    return Cli.run(() -> new CommandLine(command), args(extra).toArray(String[]::new));
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

  @Test
  void aTokenFromAFileReachesAgentYamlWithoutItsNewline() throws Exception {
    Path file = Files.writeString(home.resolve("token"), "  " + TOKEN + "\n");
    Cli init = init("--token-file", file.toString());
    assertThat(init.code()).as(init.err()).isZero();
    assertThat(written().token()).isEqualTo(TOKEN);
  }

  @Test
  void aTokenFromTheEnvironmentReachesAgentYaml() {
    Cli init = initWith(Map.of("SVC_AGENT_TOKEN", TOKEN));
    assertThat(init.code()).as(init.err()).isZero();
    assertThat(written().token()).isEqualTo(TOKEN);
  }

  @Test
  void aTokenGivenOnTheCommandLineOrInAFileWinsOverTheEnvironment() throws Exception {
    Path file = Files.writeString(home.resolve("token"), TOKEN);
    assertThat(initWith(Map.of("SVC_AGENT_TOKEN", "from-env"), "--token-file", file.toString()).code()).isZero();
    assertThat(written().token()).isEqualTo(TOKEN);
    assertThat(initWith(Map.of("SVC_AGENT_TOKEN", "from-env"), "--force", "--token", "from-flag").code()).isZero();
    assertThat(written().token()).isEqualTo("from-flag");
  }

  @Test
  void withNoTokenAnywhereAgentYamlHasNone() {
    assertThat(initWith(Map.of()).code()).isZero();
    assertThat(written().token()).isEmpty();
  }

  @Test
  void bothTokenOptionsAreAUsageError() throws Exception {
    Path file = Files.writeString(home.resolve("token"), TOKEN);
    Cli init = init("--token", TOKEN, "--token-file", file.toString());
    assertThat(init.code()).isEqualTo(2);
    assertThat(init.err()).contains("give only one of --token, --token-file");
    assertThat(home.resolve("agent.yaml")).doesNotExist();
  }

  @Test
  void anEmptyOrUnreadableTokenFileIsAUsageErrorNamingTheFile() throws Exception {
    Path empty = Files.writeString(home.resolve("empty"), " \n");
    Cli init = init("--token-file", empty.toString());
    assertThat(init.code()).isEqualTo(2);
    assertThat(init.err()).contains("svc-agent init:").contains(empty.toString()).contains("empty");
    Path missing = home.resolve("missing");
    init = init("--token-file", missing.toString());
    assertThat(init.code()).isEqualTo(2);
    assertThat(init.err()).contains("svc-agent init:").contains(missing.toString()).contains("cannot read")
        .contains("no such file");
    assertThat(home.resolve("agent.yaml")).doesNotExist();
  }

  @Test
  void severalServersSeparatedByCommasAreAllKeptInOrder() throws Exception {
    Cli init = Cli.run("init", "--home", home.toString(), "--name", "init-agent", "--server",
        "http://127.0.0.1:1, http://svc-2.lab:8080/,http://svc-3.lab:8080");
    assertThat(init.code()).as(init.err()).isZero();
    assertThat(written().servers())
        .containsExactly("http://127.0.0.1:1", "http://svc-2.lab:8080", "http://svc-3.lab:8080");
    assertThat(Files.readString(home.resolve("agent.yaml")))
        .contains("server:\n- http://127.0.0.1:1\n- http://svc-2.lab:8080\n- http://svc-3.lab:8080\n");
  }

  @Test
  void aServerNamedTwiceIsRefusedAndNothingWritten() {
    Cli init = Cli.run("init", "--home", home.toString(), "--name", "init-agent", "--server",
        "http://svc-1.lab:8080,http://svc-2.lab:8080,http://SVC-1.lab:8080/");
    assertThat(init.code()).isEqualTo(1);
    assertThat(init.err()).contains("svc-agent init: --server names http://SVC-1.lab:8080 twice");
    assertThat(home.resolve("agent.yaml")).doesNotExist();
  }

  @Test
  void serversOfTwoSchemesAreRefused() {
    Cli init = Cli.run("init", "--home", home.toString(), "--name", "init-agent", "--server",
        "http://svc-1.lab:8080,https://svc-2.lab:8080");
    assertThat(init.code()).isEqualTo(1);
    assertThat(init.err()).contains("--server mixes http://svc-1.lab:8080 and https://svc-2.lab:8080");
    assertThat(home.resolve("agent.yaml")).doesNotExist();
  }

  @Test
  void theHelpWarnsThatTokenShowsInPs() {
    Cli help = Cli.run("init", "--help");
    assertThat(help.out().replaceAll("\\s+", " ")).contains("--token-file").contains("SVC_AGENT_TOKEN")
        .contains("shows in `ps` and shell history");
  }
}
