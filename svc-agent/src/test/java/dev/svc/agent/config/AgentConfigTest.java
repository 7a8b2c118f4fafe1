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
