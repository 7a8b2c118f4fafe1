package dev.svc.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.uplink.FakeCluster;
import dev.svc.core.tls.Pem;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code svc-agent init --server A,B} against the HTTPS nodes of one server ({@link FakeCluster}):
 * the CA is pinned from the first node that answers, every other node that answers must present
 * the same CA, and agent.yaml keeps every node.
 */
class InitClusterTest {

  @TempDir
  Path dir;

  FakeCluster cluster;

  @BeforeEach
  void start() {
    cluster = new FakeCluster(dir.resolve("server"));
  }

  @AfterEach
  void stop() throws Exception {
    cluster.close();
  }

  private Path home() {
    return dir.resolve("agent");
  }

  private Cli init(String servers) {
    return Cli.run("init", "--home", home().toString(), "--server", servers, "--name", "cluster-agent",
        "--ca-fingerprint", cluster.ca().fingerprint());
  }

  @Test
  void twoNodesAreEnrolledWithTheirOneCaAndBothKept() throws Exception {
    FakeCluster.Node first = cluster.start();
    FakeCluster.Node second = cluster.start();
    Cli init = init(first.url() + "," + second.url());
    assertThat(init.code()).as(init.err()).isZero();

    AgentConfig config = AgentConfig.load(home().resolve("agent.yaml"));
    assertThat(config.servers()).containsExactly(first.url().toString(), second.url().toString());
    assertThat(Files.readString(home().resolve("agent.yaml")))
        .contains("server:\n- " + first.url() + "\n- " + second.url() + "\n");
    assertThat(Pem.readCertificate(home().resolve("certs/ca.pem"))).isEqualTo(cluster.ca().certificate());
    assertThat(first.received("/api/v1/agents/certificate")).as("the certificate comes from the node pinned")
        .hasSize(1);
    assertThat(second.received()).isEmpty();
  }

  @Test
  void theCaIsPinnedFromTheFirstNodeThatAnswers() throws Exception {
    FakeCluster.Node lost = cluster.start();
    FakeCluster.Node second = cluster.start();
    lost.close();
    Cli init = init(lost.url() + "," + second.url());
    assertThat(init.code()).as(init.err()).isZero();
    assertThat(init.out()).contains("Warning: cannot reach " + lost.url());
    assertThat(second.received("/api/v1/agents/certificate")).hasSize(1);
    assertThat(AgentConfig.load(home().resolve("agent.yaml")).servers())
        .containsExactly(lost.url().toString(), second.url().toString());
  }

  @Test
  void aNodeWithAnotherCaIsRefusedByItsUrlBeforeTheTokenIsSent() throws Exception {
    FakeCluster.Node first = cluster.start();
    FakeCluster.Node foreign = cluster.startWithOtherCa(dir.resolve("other-ca"));
    Cli init = init(first.url() + "," + foreign.url());
    assertThat(init.code()).isEqualTo(1);
    assertThat(init.err()).contains("svc-agent init: " + foreign.url() + " presents another CA")
        .contains(first.url().toString());
    assertThat(home().resolve("agent.yaml")).doesNotExist();
    assertThat(first.received()).as("no certificate request, so no token, went out").isEmpty();
  }

  @Test
  void noNodeAnsweringIsAnErrorNamingEach() throws Exception {
    FakeCluster.Node first = cluster.start();
    FakeCluster.Node second = cluster.start();
    first.close();
    second.close();
    Cli init = init(first.url() + "," + second.url());
    assertThat(init.code()).isEqualTo(1);
    assertThat(init.err()).contains("Cannot reach " + first.url()).contains(second.url().toString());
    assertThat(home().resolve("agent.yaml")).doesNotExist();
  }
}
