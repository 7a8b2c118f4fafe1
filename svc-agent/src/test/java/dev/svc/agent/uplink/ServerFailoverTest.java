package dev.svc.agent.uplink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.AgentBus;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.daemon.ControlVerticle;
import dev.svc.agent.enrol.Enrolment;
import dev.svc.core.protocol.Registration;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An agent enrolled with two nodes of one server, its control and uplink verticles wired as the
 * daemon wires them (one {@link Servers} for both), against two {@link FakeCluster} nodes on
 * 127.0.0.1 over mutual TLS. A node that is lost, or that presents another CA, is left for the
 * next; a node that answers, whatever the status, is not.
 */
class ServerFailoverTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  FakeCluster cluster;
  Vertx agent;
  Servers servers;
  UplinkVerticle uplink;

  @BeforeEach
  void startCluster() {
    cluster = new FakeCluster(dir.resolve("server"));
  }

  @AfterEach
  void stop() throws Exception {
    if (agent != null) {
      agent.close().await(30, TimeUnit.SECONDS);
    }
    cluster.close();
  }

  private AgentHome home() {
    return new AgentHome(dir.resolve("agent"));
  }

  /** {@code svc-agent init --server <nodes> --ca-fingerprint <the cluster's>}, through the real enrolment. */
  private AgentConfig enrol(FakeCluster.Node... nodes) throws Exception {
    String list = Arrays.stream(nodes).map(n -> n.url().toString()).collect(Collectors.joining(","));
    return new Enrolment(home(), home().config(), new PrintStream(OutputStream.nullOutputStream()), question -> null)
        .enrol(list, "", "gpu-node-1", 8090, null, dir.resolve("models").toString(), "", "", cluster.ca().fingerprint(),
            true);
  }

  /** The uplink and the control verticle, deployed as the daemon deploys them; returns once registered. */
  private void startAgent(AgentConfig config) throws Exception {
    agent = Vertx.vertx();
    AgentIdentity identity = new AgentIdentity(config.name());
    servers = new Servers(config.serverUris());
    UplinkVerticle.ServerConnectionFactory connections = v -> ServerConnection.open(v, config, servers, false);
    uplink = new UplinkVerticle(home().spool(), identity, connections);
    agent.deployVerticle(uplink)
        .compose(v -> agent.deployVerticle(new ControlVerticle(home(), config, identity,
            Registration.named(config.name()), connections)))
        .await(60, TimeUnit.SECONDS);
  }

  /** What the engine hands the uplink at the end of a run; answered once it is in the spool. */
  private void report(String commandId) throws Exception {
    JsonObject result = new JsonObject().put("command_id", commandId).put("test_id", "test-" + commandId)
        .put("status", "completed").putNull("error").put("result_data", new JsonObject().put("tokens_per_s", 42.5));
    JsonObject reply = agent.eventBus().<JsonObject>request(AgentBus.UPLINK_RESULT, result).await(30, TimeUnit.SECONDS)
        .body();
    assertThat(reply.getBoolean("spooled")).isTrue();
  }

  private static long heartbeats(FakeCluster.Node node) {
    return node.received("/heartbeat").size();
  }

  @Test
  void whenTheFirstNodeIsLostHeartbeatsAndTheSpoolGoOnThroughTheSecond() throws Exception {
    FakeCluster.Node first = cluster.start();
    FakeCluster.Node second = cluster.start();
    AgentConfig config = enrol(first, second);
    startAgent(config);
    cluster.await("a heartbeat on the first node", WAIT, () -> heartbeats(first) >= 1);
    assertThat(second.received()).as("nothing goes to the second node while the first answers").isEmpty();

    first.close();
    // made while the first node is down: spooled, tried there, then delivered through the second
    report("cmd-after-loss");
    cluster.await("the result on the second node", WAIT, () -> second.results("cmd-after-loss") >= 1);
    assertThat(servers.current()).isEqualTo(second.url());
    cluster.await("a heartbeat on the second node", WAIT, () -> heartbeats(second) >= 1);

    // the entry left the spool at the second node's 202, long before that heartbeat: nothing is resent
    assertThat(uplink.pending()).as("the spool is empty").isZero();
    assertThat(second.results("cmd-after-loss")).as("the result reached the second node once").isEqualTo(1);
    assertThat(first.results("cmd-after-loss")).as("the lost node never took it").isZero();
    assertThat(cluster.recordedResults()).isEqualTo(1);
    assertThat(second.received()).as("every request to the second node carried the client certificate")
        .allMatch(FakeCluster.Received::clientCertified);
    assertThat(second.received("/register")).as("the agent's id holds on the second node: no new registration")
        .isEmpty();
    assertThat(Files.list(home().spool()).filter(p -> p.toString().endsWith(".json")).toList()).isEmpty();
  }

  @Test
  void aNodeThatPresentsAnotherCaIsLeftForTheNext() throws Exception {
    FakeCluster.Node good = cluster.start();
    AgentConfig enrolled = enrol(good);
    FakeCluster.Node foreign = cluster.startWithOtherCa(dir.resolve("other-ca"));
    // the foreign node first: its TLS handshake fails against the pinned CA, as a node of another server would
    AgentConfig config = new AgentConfig(List.of(foreign.url().toString(), good.url().toString()), enrolled.token(),
        enrolled.name(), enrolled.port(), enrolled.bind(), enrolled.modelStorageDir(), enrolled.shareSource(),
        enrolled.shareMount(), enrolled.caFingerprint(), enrolled.tls(), enrolled.nvidiaSmi(), enrolled.mount());
    startAgent(config);
    cluster.await("a heartbeat on the node with the pinned CA", WAIT, () -> heartbeats(good) >= 1);
    assertThat(foreign.received()).as("no request got past the handshake with the other CA").isEmpty();
    assertThat(good.received("/register")).hasSize(1);
    assertThat(servers.current()).isEqualTo(good.url());
  }

  @ParameterizedTest
  @ValueSource(ints = {409, 503})
  void aNodeThatAnswersWithAnErrorStatusIsNotLeft(int status) throws Exception {
    FakeCluster.Node first = cluster.start();
    FakeCluster.Node second = cluster.start();
    AgentConfig config = enrol(first, second);
    // registration is answered; every heartbeat and result after it gets the error status
    first.answerWith(status);
    startAgent(config);
    report("cmd-refused");
    // a failed heartbeat is tried again within 1 s, then 2 s: three of them all went to the first node
    cluster.await("three heartbeats on the first node", WAIT, () -> heartbeats(first) >= 3);
    cluster.await("the result on the first node", WAIT, () -> first.results("cmd-refused") >= 1);
    assertThat(second.received()).as("an answer, whatever its status, keeps the agent on its node").isEmpty();
    assertThat(servers.current()).isEqualTo(first.url());
  }
}
