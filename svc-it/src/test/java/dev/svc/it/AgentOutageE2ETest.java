package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.AgentBus;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.daemon.ControlVerticle;
import dev.svc.agent.hardware.HardwareProbe;
import dev.svc.agent.uplink.AgentIdentity;
import dev.svc.agent.uplink.ServerConnection;
import dev.svc.agent.uplink.UplinkVerticle;
import dev.svc.core.protocol.Registration;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the agent owes the server survives the server's death (issue 16, acceptance 4, the uplink's
 * part): the server is killed with SIGKILL while the agent reports a test; the reports wait in the
 * spool, are retried with backoff, and once the server is back it holds every log line exactly once,
 * in order, the test's final status and its result. The same when the agent's own process goes away
 * with reports still spooled: a new one sends them.
 *
 * <p>The agent's control and uplink verticles run in this JVM against a real {@code svc web}
 * process; the test plays the engine on the agent's event bus (it takes the run_test command and
 * sends what the engine sends: status, log batches, the result).
 */
class AgentOutageE2ETest {

  ServerProcess server;
  AgentProcess agent;
  Vertx vertx;

  @BeforeEach
  void start() {
    server = ServerProcess.start();
  }

  @AfterEach
  void stop() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    if (agent != null) {
      agent.close();
    }
    server.close();
  }

  /** The agent's control plane and uplink in a fresh Vert.x, with the test as its engine. */
  private LinkedBlockingQueue<JsonObject> startAgent(AgentConfig config) throws Exception {
    vertx = Vertx.vertx();
    LinkedBlockingQueue<JsonObject> commands = new LinkedBlockingQueue<>();
    vertx.eventBus().<JsonObject>consumer(AgentBus.ENGINE_COMMAND, m -> {
      commands.add(m.body());
      m.reply(new JsonObject().put("accepted", true));
    }).completion().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    AgentHome home = new AgentHome(agent.home());
    AgentIdentity identity = new AgentIdentity(config.name());
    UplinkVerticle.ServerConnectionFactory connections = v -> ServerConnection.open(v, config, false);
    Registration registration = HardwareProbe.registration(home, config);
    vertx.deployVerticle(new UplinkVerticle(home.spool(), identity, connections))
        .compose(v -> vertx.deployVerticle(new ControlVerticle(home, config, identity, registration, connections)))
        .toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    return commands;
  }

  private void send(String address, JsonObject body) throws Exception {
    vertx.eventBus().request(address, body).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private JsonObject prepareTest() {
    agent = AgentProcess.enrol(server, "gpu-node-outage");
    agent.configure(c -> AgentControlE2ETest.inItsHome(agent, c, c.token()));
    Http api = server.api();
    assertThat(api.put("/api/v1/agents/" + agent.id() + "/settings", new JsonObject().put("heartbeat_interval_s", 10))
        .status()).isEqualTo(200);
    Http.Response created = api.post("/api/v1/quicktest", new JsonObject().put("agent_id", agent.id())
        .put("model_path", "/models/tiny/tiny.gguf").put("engine_name", "llama_cpp").put("force", true));
    assertThat(created.status()).as(created.toString()).isEqualTo(202);
    return created.json();
  }

  private List<String> storedLines(String testId) {
    Http.Response logs = server.api().get("/api/v1/quicktest/" + testId + "/logs");
    List<String> out = new ArrayList<>();
    if (logs.status() == 200) {
      logs.json().getJsonArray("lines").forEach(l -> out.add(((JsonObject) l).getString("line")));
    }
    return out;
  }

  private static JsonObject batch(JsonObject test, List<String> lines) {
    return new JsonObject().put("test_id", test.getString("id")).put("command_id", test.getString("command_id"))
        .put("lines", new JsonArray(new ArrayList<>(lines)));
  }

  private static List<String> numbered(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add("line " + i);
    }
    return out;
  }

  @Test
  void aServerKilledMidTestGetsEveryLineOnceInOrderAndTheResult() throws Exception {
    JsonObject test = prepareTest();
    String testId = test.getString("id");
    LinkedBlockingQueue<JsonObject> commands = startAgent(agent.config());
    JsonObject runTest = commands.poll(60, TimeUnit.SECONDS);
    assertThat(runTest).as("the run_test command").isNotNull();
    assertThat(runTest.getString("test_id")).isEqualTo(testId);

    send(AgentBus.UPLINK_STATUS, new JsonObject().put("test_id", testId).put("command_id", test.getString("command_id"))
        .put("status", "running"));
    send(AgentBus.UPLINK_LOGS, batch(test, numbered(0, 50)));
    Processes.await("the first lines on the server", Duration.ofSeconds(30), () -> storedLines(testId).size() == 50);

    server.kill9();
    // the benchmark goes on: its lines are spooled while nobody answers
    for (int i = 50; i < 450; i += 25) {
      send(AgentBus.UPLINK_LOGS, batch(test, numbered(i, i + 25)));
    }
    send(AgentBus.UPLINK_STATUS, new JsonObject().put("test_id", testId).put("command_id", test.getString("command_id"))
        .put("status", "completed"));
    send(AgentBus.UPLINK_RESULT, new JsonObject().put("command_id", test.getString("command_id")).put("test_id", testId)
        .put("status", "completed").putNull("error").put("result_data", metrics()));
    assertThat(spoolEntries()).isNotEmpty();

    server.restart();
    Processes.await("the test completed on the server", Duration.ofSeconds(60),
        () -> "completed".equals(server.api().get("/api/v1/quicktest/" + testId).json().getString("status")));
    Processes.await("the spool to drain", Duration.ofSeconds(60), () -> spoolEntries().isEmpty());
    assertThat(storedLines(testId)).containsExactlyElementsOf(numbered(0, 450));
    JsonObject stored = server.api().get("/api/v1/quicktest/" + testId).json();
    assertThat(stored.getString("result_id")).isNotNull();
    JsonObject result = server.api().get("/api/v1/results/" + stored.getString("result_id")).json();
    assertThat(result.getString("test_id")).isEqualTo(testId);
  }

  @Test
  void reportsSpooledByAnAgentThatWentAwayAreSentByTheNextOne() throws Exception {
    JsonObject test = prepareTest();
    String testId = test.getString("id");
    LinkedBlockingQueue<JsonObject> commands = startAgent(agent.config());
    assertThat(commands.poll(60, TimeUnit.SECONDS)).as("the run_test command").isNotNull();
    send(AgentBus.UPLINK_STATUS, new JsonObject().put("test_id", testId).put("command_id", test.getString("command_id"))
        .put("status", "running"));
    Processes.await("the test running on the server", Duration.ofSeconds(30),
        () -> "running".equals(server.api().get("/api/v1/quicktest/" + testId).json().getString("status")));
    Processes.await("the spool to drain", Duration.ofSeconds(30), () -> spoolEntries().isEmpty());

    // the benchmark ends while the server is away; then the agent goes away before reporting it
    server.kill9();
    send(AgentBus.UPLINK_LOGS, batch(test, numbered(0, 30)));
    send(AgentBus.UPLINK_STATUS, new JsonObject().put("test_id", testId).put("command_id", test.getString("command_id"))
        .put("status", "completed"));
    send(AgentBus.UPLINK_RESULT, new JsonObject().put("command_id", test.getString("command_id")).put("test_id", testId)
        .put("status", "completed").putNull("error").put("result_data", metrics()));
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    vertx = null;
    assertThat(spoolEntries()).hasSize(3);

    server.restart();
    LinkedBlockingQueue<JsonObject> again = startAgent(agent.config());
    Processes.await("the test completed on the server", Duration.ofSeconds(60),
        () -> "completed".equals(server.api().get("/api/v1/quicktest/" + testId).json().getString("status")));
    Processes.await("the spool to drain", Duration.ofSeconds(60), () -> spoolEntries().isEmpty());
    assertThat(storedLines(testId)).containsExactlyElementsOf(numbered(0, 30));
    assertThat(server.api().get("/api/v1/quicktest/" + testId).json().getString("result_id")).isNotNull();
    // the run_test it accepted before is acknowledged, never handed to the engine twice
    assertThat(again).isEmpty();
  }

  private List<String> spoolEntries() {
    try (var files = java.nio.file.Files.list(agent.home().resolve("spool"))) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A metrics.json as svc run writes it, in the fields the server indexes. */
  private static JsonObject metrics() {
    return new JsonObject().put("model", "tiny.gguf").put("engine", "llama_cpp").put("suite_name", "quick")
        .put("benchmark", "throughput").put("ttft_ms", 12.5).put("tpot_ms", 3.2);
  }
}
