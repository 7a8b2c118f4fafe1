package dev.svc.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentConfigTest {

  @TempDir
  Path dir;

  private Path yaml(String extra) throws Exception {
    return Files.writeString(dir.resolve("agent.yaml"), "server: https://svc.lab:8080\nname: gpu-node-1\n" + extra);
  }

  @Test
  void anAgentYamlWithoutBindListensOnLoopback() throws Exception {
    AgentConfig config = AgentConfig.load(yaml(""));
    assertThat(config.bind()).isEqualTo("127.0.0.1");
    assertThat(config.bindsEverywhere()).isFalse();
  }

  @Test
  void bindIsReadAndWrittenBack() throws Exception {
    AgentConfig config = AgentConfig.load(yaml("bind: 0.0.0.0\n"));
    assertThat(config.bind()).isEqualTo("0.0.0.0");
    assertThat(config.bindsEverywhere()).isTrue();
    config.write(dir.resolve("copy.yaml"));
    assertThat(Files.readString(dir.resolve("copy.yaml"))).contains("bind: 0.0.0.0");
    assertThat(AgentConfig.load(dir.resolve("copy.yaml")).bind()).isEqualTo("0.0.0.0");
    assertThat(AgentConfig.load(yaml("bind: '::'\n")).bindsEverywhere()).isTrue();
    assertThat(AgentConfig.load(yaml("bind: 10.1.2.3\n")).bindsEverywhere()).isFalse();
    assertThat(AgentConfig.load(yaml("bind: gpu-node-1.lab\n")).bind()).isEqualTo("gpu-node-1.lab");
  }

  @Test
  void aBindThatIsNoAddressIsRefusedWithTheFileAndTheValue() throws Exception {
    for (String bad : new String[] {"999.1.1.1", "not an address", "http://0.0.0.0", "[::1]", "host_name", "-x.lab"}) {
      Path file = yaml("bind: '" + bad + "'\n");
      assertThatThrownBy(() -> AgentConfig.load(file)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(file + ": 'bind' must be an IP address").hasMessageContaining("'" + bad + "'");
    }
  }

  private Path withServer(String server) throws Exception {
    return Files.writeString(dir.resolve("agent.yaml"), server + "name: gpu-node-1\n");
  }

  @Test
  void oneServerStaysAPlainStringAsAgentsBeforeClustersReadIt() throws Exception {
    AgentConfig config = AgentConfig.load(withServer("server: https://svc.lab:8080/\n"));
    assertThat(config.servers()).containsExactly("https://svc.lab:8080");
    config.write(dir.resolve("copy.yaml"));
    assertThat(Files.readString(dir.resolve("copy.yaml"))).contains("\nserver: https://svc.lab:8080\n")
        .doesNotContain("- https://");
    assertThat(AgentConfig.load(dir.resolve("copy.yaml"))).isEqualTo(config);
  }

  @Test
  void severalServersAreWrittenAsAListAndReadBackInOrder() throws Exception {
    AgentConfig config =
        AgentConfig.load(withServer("server:\n  - https://svc-2.lab:8080\n  - https://svc-1.lab:8080\n"));
    assertThat(config.servers()).containsExactly("https://svc-2.lab:8080", "https://svc-1.lab:8080");
    assertThat(config.https()).isTrue();
    config.write(dir.resolve("copy.yaml"));
    assertThat(Files.readString(dir.resolve("copy.yaml")))
        .contains("\nserver:\n- https://svc-2.lab:8080\n- https://svc-1.lab:8080\n");
    assertThat(AgentConfig.load(dir.resolve("copy.yaml"))).isEqualTo(config);
  }

  @Test
  void aCommaSeparatedServerIsReadAsAList() throws Exception {
    AgentConfig config = AgentConfig.load(withServer("server: 'http://svc-1.lab:8080, http://svc-2.lab:8080'\n"));
    assertThat(config.servers()).containsExactly("http://svc-1.lab:8080", "http://svc-2.lab:8080");
    assertThat(config.https()).isFalse();
    assertThat(config.server()).isEqualTo("http://svc-1.lab:8080,http://svc-2.lab:8080");
  }

  @Test
  void serversNamedTwiceOfTwoSchemesOrNoUrlsAreRefusedWithTheFile() throws Exception {
    Path twice = withServer("server: [https://svc.lab:8080, https://SVC.lab:8080/]\n");
    assertThatThrownBy(() -> AgentConfig.load(twice)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage(twice + ": 'server' names https://SVC.lab:8080 twice");
    Path mixed = withServer("server: [https://svc-1.lab:8080, http://svc-2.lab:8080]\n");
    assertThatThrownBy(() -> AgentConfig.load(mixed))
        .hasMessageStartingWith(mixed + ": 'server' mixes http:// and https://");
    Path notUrl = withServer("server: [https://svc-1.lab:8080, svc-2.lab]\n");
    assertThatThrownBy(() -> AgentConfig.load(notUrl))
        .hasMessage(notUrl + ": 'server' must be an http:// or https:// URL, not 'svc-2.lab'");
    Path nested = withServer("server: [[https://svc-1.lab:8080]]\n");
    assertThatThrownBy(() -> AgentConfig.load(nested)).hasMessage(nested + ": 'server' must be a URL or a list of URLs");
    Path empty = withServer("server: []\n");
    assertThatThrownBy(() -> AgentConfig.load(empty)).hasMessageContaining("'server' must name at least one");
  }

  @Test
  void ipLiteralsAndHostNamesAreBindAddresses() {
    assertThat(AgentConfig.isBindAddress("127.0.0.1")).isTrue();
    assertThat(AgentConfig.isBindAddress("::1")).isTrue();
    assertThat(AgentConfig.isBindAddress("fd00::2")).isTrue();
    assertThat(AgentConfig.isBindAddress("localhost")).isTrue();
    assertThat(AgentConfig.isBindAddress("1.2.3")).isFalse();
    assertThat(AgentConfig.isBindAddress("")).isFalse();
    assertThat(AgentConfig.isBindAddress(null)).isFalse();
  }
}
