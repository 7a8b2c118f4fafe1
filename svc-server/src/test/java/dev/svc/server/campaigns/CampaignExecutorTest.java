package dev.svc.server.campaigns;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.events.EventAddresses;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import dev.svc.server.simulator.TestAgentSimulator;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Campaign execution end to end: rows created one at a time on a real agent driven over HTTP and on
 * a simulated test agent, campaign logs stored and streamed, cancellation, the per-row timeout and
 * resumption after a restart.
 */
class CampaignExecutorTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir
  Path home;

  private TestServer server;
  private BusRecorder bus;

  private static Timings fast() {
    return Timings.defaults().withSimulatorDelays(20, 40).withSweep(200);
  }

  private void startServer(Timings timings) {
    server = TestServer.start(home, new TestServer.Options().insecure().timings(timings));
    bus = new BusRecorder(server.vertx());
  }

  @AfterEach
  void stop() {
    if (bus != null) {
      bus.close();
    }
    if (server != null) {
      server.close();
    }
  }

  // --- helpers ---

  private String registerRealAgent(String name) {
    HttpResponse<Buffer> r = server.post("/api/v1/agents/register",
        new JsonObject().put("name", name).put("hostname", name).put("cpu_arch", "x86_64"));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getString("agent_id");
  }

  private String createTestAgent(String name) {
    HttpResponse<Buffer> r = server.post("/api/v1/agents/test", new JsonObject().put("name", name).put("cpu_arch", "arm64"));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getString("id");
  }

  private String createCampaign(String agentId, List<String> models, List<String> engines) {
    JsonArray m = new JsonArray();
    models.forEach(name -> m.add(new JsonObject().put("name", name).put("path", "/models/" + name)));
    JsonArray e = new JsonArray();
    engines.forEach(name -> e.add(new JsonObject().put("name", name)));
    HttpResponse<Buffer> r = server.post("/api/v1/campaigns", new JsonObject().put("name", "nightly")
        .put("agent_id", agentId).put("config", new JsonObject().put("models", m).put("engines", e)));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.bodyAsJsonObject().getString("id");
  }

  private void launch(String campaignId) {
    HttpResponse<Buffer> r = server.post("/api/v1/campaigns/" + campaignId + "/launch", new JsonObject());
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(202);
  }

  private JsonObject campaign(String campaignId) {
    return server.get("/api/v1/campaigns/" + campaignId).bodyAsJsonObject();
  }

  private List<String> campaignLog(String campaignId) {
    return server.get("/api/v1/campaigns/" + campaignId + "/logs").bodyAsJsonObject().getJsonArray("lines").stream()
        .map(o -> ((JsonObject) o).getString("line")).collect(Collectors.toList());
  }

  /**
   * Waits for a campaign log line, stored already or published later (the recorder was registered
   * before the stored lines are read, so none falls between the two).
   */
  private void awaitCampaignLine(String campaignId, String contains) {
    if (campaignLog(campaignId).stream().noneMatch(line -> line.contains(contains))) {
      bus.await(BusRecorder.log(campaignId, contains), WAIT);
    }
  }

  private JsonArray heartbeat(String agentId) {
    HttpResponse<Buffer> r = server.post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject().put("status", "idle"));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject().getJsonArray("commands");
  }

  private void report(String testId, String path, JsonObject body) {
    HttpResponse<Buffer> r = server.post("/api/v1/quicktest/" + testId + "/" + path, body);
    assertThat(r.statusCode()).as(path + ": " + r.bodyAsString()).isEqualTo(200);
  }

  /** Waits for the next row's quick test to be queued; returns its id. */
  private String nextRow(List<String> seen) {
    String id = bus.await(BusRecorder.queuedTestOtherThan(seen), WAIT).getJsonObject("data").getString("test_id");
    seen.add(id);
    return id;
  }

  private static List<JsonObject> runTests(JsonArray commands) {
    List<JsonObject> out = new ArrayList<>();
    commands.forEach(c -> {
      if ("run_test".equals(((JsonObject) c).getString("type"))) {
        out.add((JsonObject) c);
      }
    });
    return out;
  }

  /** Drives one row on a real agent: the heartbeat hands it out, the agent logs and completes it. */
  private JsonObject runRowOnAgent(String agentId, String testId, String line) {
    List<JsonObject> handed = runTests(heartbeat(agentId));
    assertThat(handed).hasSize(1);
    assertThat(handed.get(0).getString("test_id")).isEqualTo(testId);
    report(testId, "logs", new JsonObject().put("line", line));
    report(testId, "status", new JsonObject().put("status", "running"));
    report(testId, "status", new JsonObject().put("status", "completed"));
    return bus.await(BusRecorder.status(testId, "completed"), WAIT);
  }

  // --- tests ---

  @Test
  void campaignOnARealAgentRunsRowsOneAtATime() {
    startServer(fast());
    String agentId = registerRealAgent("gpu-1");
    String campaignId = createCampaign(agentId, List.of("m"), List.of("vllm", "tgi"));
    List<String> seen = new ArrayList<>();

    launch(campaignId);
    bus.await(BusRecorder.status(campaignId, "running"), WAIT);
    String first = nextRow(seen);

    List<JsonObject> handed = runTests(heartbeat(agentId));
    assertThat(handed).hasSize(1);
    assertThat(handed.get(0).getString("test_id")).isEqualTo(first);
    assertThat(handed.get(0).getJsonObject("payload").getString("engine_name")).isEqualTo("vllm");
    assertThat(handed.get(0).getJsonObject("payload").getString("model_path")).isEqualTo("/models/m");
    report(first, "logs", new JsonObject().put("line", "x"));
    report(first, "status", new JsonObject().put("status", "running"));
    bus.await(BusRecorder.log(campaignId, "[1/2] x"), WAIT);

    // while the first row runs there is no second one
    JsonArray rows = campaign(campaignId).getJsonArray("quick_tests");
    assertThat(rows).hasSize(1);
    assertThat(rows.getJsonObject(0).getInteger("campaign_row")).isZero();

    report(first, "status", new JsonObject().put("status", "completed"));
    JsonObject firstDone = bus.await(BusRecorder.status(first, "completed"), WAIT);
    String second = nextRow(seen);
    JsonObject secondQueued = bus.await(BusRecorder.status(second, "queued"), WAIT);
    assertThat(secondQueued.getLong("id")).isGreaterThan(firstDone.getLong("id"));

    JsonObject secondDone = runRowOnAgent(agentId, second, "y");
    assertThat(secondDone).isNotNull();
    bus.await(BusRecorder.status(campaignId, "completed"), WAIT);

    JsonObject done = campaign(campaignId);
    assertThat(done.getString("status")).isEqualTo("completed");
    assertThat(done.getInteger("total_runs")).isEqualTo(2);
    assertThat(done.getInteger("succeeded")).isEqualTo(2);
    assertThat(done.getInteger("failed")).isZero();
    JsonArray tests = done.getJsonArray("quick_tests");
    assertThat(tests).hasSize(2);
    assertThat(tests.getJsonObject(1).getString("engine_name")).isEqualTo("tgi");
    assertThat(tests.getJsonObject(1).getInteger("campaign_row")).isEqualTo(1);
    assertThat(campaignLog(campaignId)).contains("[1/2] x", "[2/2] y", "[1/2] m × vllm × throughput",
        "[2/2] m × tgi × throughput");
  }

  @Test
  void rowTimeoutFailsTheRowAndContinues() {
    startServer(fast().withCampaignRowTimeout(700));
    String agentId = registerRealAgent("gpu-silent");
    String campaignId = createCampaign(agentId, List.of("m"), List.of("vllm", "tgi"));
    List<String> seen = new ArrayList<>();

    launch(campaignId);
    String first = nextRow(seen);
    // the agent takes the first row and starts it, then never reports again
    assertThat(runTests(heartbeat(agentId))).hasSize(1);
    report(first, "status", new JsonObject().put("status", "running"));

    JsonObject failed = bus.await(BusRecorder.status(first, "failed"), WAIT);
    assertThat(failed.getJsonObject("data").getString("error")).isEqualTo("Timed out after 700 ms");
    String second = nextRow(seen);
    JsonObject secondFailed = bus.await(BusRecorder.status(second, "failed"), WAIT);
    assertThat(secondFailed.getJsonObject("data").getString("error")).startsWith("Timed out");
    bus.await(BusRecorder.status(campaignId, "completed"), WAIT);

    // the agent that held the first row is told to stop it; the second row never left the queue
    JsonArray commands = heartbeat(agentId);
    assertThat(commands.stream().map(c -> (JsonObject) c)
        .filter(c -> "cancel_test".equals(c.getString("type")))
        .map(c -> c.getString("test_id"))).containsExactly(first);
    assertThat(runTests(commands)).isEmpty();

    JsonObject done = campaign(campaignId);
    assertThat(done.getString("status")).isEqualTo("completed");
    assertThat(done.getInteger("succeeded")).isZero();
    assertThat(done.getInteger("failed")).isEqualTo(2);
    assertThat(campaignLog(campaignId)).contains("All 2 runs failed", "[1/2] failed: Timed out after 700 ms");
  }

  @Test
  void campaignWhoseAgentWasDeletedFailsWithAnError() {
    startServer(fast());
    String agentId = registerRealAgent("gpu-gone");
    String campaignId = createCampaign(agentId, List.of("m"), List.of("vllm"));
    HttpResponse<Buffer> deleted = TestServer.send(server.client(), io.vertx.core.http.HttpMethod.DELETE,
        "/api/v1/agents/" + agentId, null, null);
    assertThat(deleted.statusCode()).as(deleted.bodyAsString()).isEqualTo(200);

    launch(campaignId);
    JsonObject failed = bus.await(BusRecorder.status(campaignId, "failed"), WAIT);

    assertThat(failed.getJsonObject("data").getString("error")).contains(agentId).contains("deleted");
    JsonObject after = campaign(campaignId);
    assertThat(after.getString("status")).isEqualTo("failed");
    assertThat(after.getJsonArray("quick_tests")).isEmpty();
    assertThat(campaignLog(campaignId)).anyMatch(line -> line.startsWith("Campaign failed") && line.contains("deleted"));
  }

  @Test
  void runningCampaignResumesAfterRestart() {
    startServer(fast());
    String agentId = registerRealAgent("gpu-restart");
    String campaignId = createCampaign(agentId, List.of("a", "b"), List.of("vllm"));
    List<String> seen = new ArrayList<>();
    launch(campaignId);
    String first = nextRow(seen);
    runRowOnAgent(agentId, first, "one");
    String second = nextRow(seen);
    // the agent takes the second row, then the server restarts
    assertThat(runTests(heartbeat(agentId))).hasSize(1);
    report(second, "status", new JsonObject().put("status", "running"));
    bus.close();
    server.close();

    startServer(fast());
    // the executor resumed at the second row and watches it again before it says so
    awaitCampaignLine(campaignId, "Campaign resumed at run 2/2 (1 already finished)");
    awaitCampaignLine(campaignId, "[2/2] b × vllm × throughput (resumed)");
    report(second, "logs", new JsonObject().put("line", "two"));
    report(second, "status", new JsonObject().put("status", "completed"));
    bus.await(BusRecorder.status(campaignId, "completed"), WAIT);

    JsonObject done = campaign(campaignId);
    assertThat(done.getString("status")).isEqualTo("completed");
    assertThat(done.getInteger("succeeded")).isEqualTo(2);
    assertThat(done.getJsonArray("quick_tests")).hasSize(2);
    assertThat(campaignLog(campaignId)).contains("[1/2] one", "[2/2] two");
  }

  @Test
  void runningCampaignOnATestAgentResumesAfterRestart() {
    // slower lines than elsewhere, so the second row is surely mid-run when the server stops
    Timings slower = fast().withSimulatorDelays(50, 80);
    startServer(slower);
    String agentId = createTestAgent("sim");
    String campaignId = createCampaign(agentId, List.of("a", "b"), List.of("vllm"));
    List<String> seen = new ArrayList<>();
    launch(campaignId);
    String first = nextRow(seen);
    bus.await(BusRecorder.status(first, "completed"), WAIT);
    String second = nextRow(seen);
    bus.await(BusRecorder.of(second, "log"), WAIT);
    bus.close();
    server.close();

    startServer(slower);
    awaitCampaignLine(campaignId, "[2/2] b × vllm × throughput (resumed)");
    bus.await(BusRecorder.status(campaignId, "completed"), WAIT);

    JsonObject done = campaign(campaignId);
    assertThat(done.getInteger("succeeded")).isEqualTo(2);
    JsonArray tests = done.getJsonArray("quick_tests");
    assertThat(tests).hasSize(2);
    assertThat(tests.getJsonObject(1).getString("id")).isEqualTo(second);
  }

  @Test
  void campaignOfTwoModelsByTwoEnginesOnATestAgentCompletes() {
    startServer(fast());
    String agentId = createTestAgent("sim");
    String campaignId = createCampaign(agentId, List.of("llama-8b", "qwen-7b"), List.of("vllm", "llama_cpp"));

    launch(campaignId);
    bus.await(BusRecorder.status(campaignId, "completed"), WAIT);

    JsonObject done = campaign(campaignId);
    assertThat(done.getInteger("total_runs")).isEqualTo(4);
    assertThat(done.getInteger("succeeded")).isEqualTo(4);
    assertThat(done.getInteger("failed")).isZero();
    JsonArray tests = done.getJsonArray("quick_tests");
    assertThat(tests).hasSize(4);
    for (int i = 0; i < 4; i++) {
      assertThat(tests.getJsonObject(i).getInteger("campaign_row")).isEqualTo(i);
      assertThat(tests.getJsonObject(i).getString("status")).isEqualTo("completed");
    }
    assertThat(tests.getJsonObject(1).getString("model_path")).isEqualTo("/models/llama-8b");
    assertThat(tests.getJsonObject(1).getString("engine_name")).isEqualTo("llama_cpp");

    List<String> stored = campaignLog(campaignId);
    List<String> streamed = bus.events().stream().filter(BusRecorder.of(campaignId, "log"))
        .map(e -> e.getJsonObject("data").getString("line")).collect(Collectors.toList());
    assertThat(streamed).isEqualTo(stored);
    for (int i = 1; i <= 4; i++) {
      String prefix = "[" + i + "/4] ";
      assertThat(stored).anyMatch(line -> line.startsWith(prefix) && line.endsWith("completed"));
      assertThat(stored.stream().filter(line -> line.startsWith(prefix)).count()).isGreaterThan(2);
    }
    assertThat(stored).contains("[1/4] llama-8b × vllm × throughput", "[4/4] qwen-7b × llama_cpp × throughput");
    assertThat(stored.get(stored.size() - 1)).contains("4 of 4 runs succeeded");
  }

  @Test
  void cancellingMidwayStopsWithinOneIterationAndFailsTheRow() {
    startServer(fast());
    String agentId = createTestAgent("sim");
    String campaignId = createCampaign(agentId, List.of("llama-8b", "qwen-7b"), List.of("vllm", "llama_cpp"));

    CompletableFuture<String> firstTest = new CompletableFuture<>();
    CompletableFuture<JsonObject> simulationEnd = new CompletableFuture<>();
    MessageConsumer<JsonObject> ends = server.vertx().eventBus().consumer(TestAgentSimulator.FINISHED, m -> {
      if (firstTest.isDone() && m.body().getString("test_id").equals(firstTest.join())) {
        simulationEnd.complete(m.body());
      }
    });
    ends.completion().await();

    launch(campaignId);
    JsonObject firstLog = bus.await(e -> "log".equals(e.getString("type"))
        && e.getJsonObject("data").containsKey("test_id"), WAIT);
    String first = firstLog.getJsonObject("data").getString("test_id");
    firstTest.complete(first);

    HttpResponse<Buffer> cancelled = server.post("/api/v1/campaigns/" + campaignId + "/cancel", new JsonObject());
    assertThat(cancelled.statusCode()).as(cancelled.bodyAsString()).isEqualTo(200);

    JsonObject failed = bus.await(BusRecorder.status(first, "failed"), WAIT);
    assertThat(failed.getJsonObject("data").getString("error")).isEqualTo("Cancelled by user");
    bus.await(BusRecorder.status(campaignId, "cancelled"), WAIT);
    bus.await(BusRecorder.log(campaignId, "Campaign cancelled"), WAIT);

    JsonObject after = campaign(campaignId);
    assertThat(after.getString("status")).isEqualTo("cancelled");
    assertThat(after.getJsonArray("quick_tests")).hasSize(1);
    assertThat(after.getJsonArray("quick_tests").getJsonObject(0).getString("status")).isEqualTo("failed");
    assertThat(after.getInteger("failed")).isEqualTo(1);
    assertThat(campaignLog(campaignId)).anyMatch(line -> line.startsWith("Campaign cancelled"));

    // the simulation stops within one iteration: at most one log line of the row after its cancel
    JsonObject outcome = simulationEnd.orTimeout(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
    assertThat(outcome.getString("outcome")).isEqualTo("stopped");
    long lateLines = bus.events().stream().filter(BusRecorder.of(first, "log"))
        .filter(e -> e.getLong("id") > failed.getLong("id")).count();
    assertThat(lateLines).isLessThanOrEqualTo(1);
    assertThat(campaign(campaignId).getJsonArray("quick_tests")).hasSize(1);
  }

  /**
   * The cancel route moves the campaign to cancelled, fails its row's test, then tells the
   * executor: here the executor hears of it only once the run has ended, so the run learns of the
   * cancel from the failed row and the stored status alone (as happens when the row's end wins the race).
   */
  @Test
  void cancellingTheLastRowEndsTheCampaignCancelledNotFinished() {
    startServer(fast());
    String agentId = createTestAgent("sim");
    String campaignId = createCampaign(agentId, List.of("llama-8b"), List.of("vllm"));
    List<DeliveryContext<Object>> held = new CopyOnWriteArrayList<>();
    server.vertx().eventBus().addOutboundInterceptor(delivery -> {
      if (EventAddresses.CAMPAIGN_CANCEL.equals(delivery.message().address())) {
        held.add(delivery);
      } else {
        delivery.next();
      }
    });

    launch(campaignId);
    JsonObject firstLog = bus.await(e -> "log".equals(e.getString("type"))
        && e.getJsonObject("data").containsKey("test_id"), WAIT);
    String only = firstLog.getJsonObject("data").getString("test_id");
    HttpResponse<Buffer> cancelled = server.post("/api/v1/campaigns/" + campaignId + "/cancel", new JsonObject());
    assertThat(cancelled.statusCode()).as(cancelled.bodyAsString()).isEqualTo(200);

    bus.await(BusRecorder.status(only, "failed"), WAIT);
    bus.await(BusRecorder.log(campaignId, "Campaign cancelled"), WAIT);
    assertThat(held).as("the executor's cancel, held back").hasSize(1);
    server.vertx().runOnContext(v -> held.forEach(DeliveryContext::next));
    assertThat(campaign(campaignId).getString("status")).isEqualTo("cancelled");
    List<String> log = campaignLog(campaignId);
    assertThat(log.get(log.size() - 1)).isEqualTo("Campaign cancelled (0 succeeded, 1 failed, 0 not run)");
    assertThat(log).noneMatch(line -> line.startsWith("Campaign finished") || line.endsWith("runs failed"));
  }
}
