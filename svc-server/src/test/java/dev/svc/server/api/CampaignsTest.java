package dev.svc.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Campaigns over REST: validated creation, listing, launch / cancel state rules, logs and deletion. */
class CampaignsTest {

  @TempDir
  Path home;

  private TestServer server;
  private String agentId;

  @BeforeEach
  void start() {
    server = TestServer.start(home);
    HttpResponse<Buffer> agent = server.post("/api/v1/agents/test",
        new JsonObject().put("name", "sim").put("cpu_arch", "arm64"));
    assertThat(agent.statusCode()).isEqualTo(201);
    agentId = agent.bodyAsJsonObject().getString("id");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static JsonArray twoModels() {
    // Directory paths without a file extension have no detectable format, so every engine accepts them.
    return new JsonArray()
        .add(new JsonObject().put("name", "llama-8b").put("path", "/models/llama-8b"))
        .add(new JsonObject().put("name", "qwen-7b").put("path", "/models/qwen-7b"));
  }

  private static JsonArray engines(String... names) {
    JsonArray out = new JsonArray();
    for (String name : names) {
      out.add(new JsonObject().put("name", name));
    }
    return out;
  }

  private JsonObject campaign(String name, JsonObject config) {
    return new JsonObject().put("name", name).put("description", "nightly").put("agent_id", agentId).put("config", config);
  }

  private HttpResponse<Buffer> create(String name, JsonObject config) {
    return server.post("/api/v1/campaigns", campaign(name, config));
  }

  private String createDraft(String name) {
    HttpResponse<Buffer> created = create(name, new JsonObject().put("models", twoModels())
        .put("engines", engines("vllm", "llama_cpp")));
    assertThat(created.statusCode()).isEqualTo(201);
    return created.bodyAsJsonObject().getString("id");
  }

  private HttpResponse<Buffer> call(HttpMethod method, String path) {
    return TestServer.send(server.client(), method, path, null, method == HttpMethod.POST ? new JsonObject() : null);
  }

  @Test
  void createdCampaignIsADraftWithOneRunPerModelEngineAndBenchmark() {
    HttpResponse<Buffer> created = create("matrix", new JsonObject().put("models", twoModels())
        .put("engines", engines("vllm", "llama_cpp")));

    assertThat(created.statusCode()).isEqualTo(201);
    JsonObject body = created.bodyAsJsonObject();
    assertThat(body.getString("id")).matches("[0-9a-f]{16}");
    assertThat(body.getString("status")).isEqualTo("draft");
    assertThat(body.getInteger("total_runs")).isEqualTo(4);
    assertThat(body.getString("agent_id")).isEqualTo(agentId);
    assertThat(body.getJsonObject("config").getJsonArray("benchmarks").getList()).containsExactly("throughput");

    HttpResponse<Buffer> read = server.get("/api/v1/campaigns/" + body.getString("id"));
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(read.bodyAsJsonObject().getString("name")).isEqualTo("matrix");
    assertThat(read.bodyAsJsonObject().getInteger("total_runs")).isEqualTo(4);
  }

  @Test
  void twoBenchmarksDoubleTheRuns() {
    HttpResponse<Buffer> created = create("matrix", new JsonObject().put("models", twoModels())
        .put("engines", engines("vllm", "llama_cpp")).put("benchmarks", new JsonArray().add("throughput").add("latency")));

    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.bodyAsJsonObject().getInteger("total_runs")).isEqualTo(8);
  }

  @Test
  void engineWithoutAnImageForTheAgentsArchitectureIsRefusedUnlessForced() {
    JsonObject config = new JsonObject().put("models", twoModels()).put("engines", engines("vllm", "tgi"));

    HttpResponse<Buffer> refused = create("tgi on arm", config);

    assertThat(refused.statusCode()).isEqualTo(422);
    assertThat(refused.bodyAsJsonObject().getString("error")).contains("tgi").containsIgnoringCase("arm64");
    assertThat(server.get("/api/v1/campaigns").bodyAsJsonObject().getLong("total")).isZero();

    HttpResponse<Buffer> forced = create("tgi on arm", config.copy().put("force", true));
    assertThat(forced.statusCode()).isEqualTo(201);
    assertThat(forced.bodyAsJsonObject().getJsonObject("config").getBoolean("force")).isTrue();
  }

  @Test
  void modelInAFormatTheEngineCannotLoadIsRefusedNamingTheFormats() {
    JsonObject config = new JsonObject()
        .put("models", new JsonArray().add(new JsonObject().put("name", "q4").put("path", "/models/qwen-q4.gguf")))
        .put("engines", engines("vllm"));

    HttpResponse<Buffer> refused = create("gguf on vllm", config);

    assertThat(refused.statusCode()).isEqualTo(422);
    assertThat(refused.bodyAsJsonObject().getString("error")).contains("gguf").contains("safetensors");
  }

  @Test
  void invalidConfigurationsAreRefused() {
    HttpResponse<Buffer> noModels = create("empty", new JsonObject().put("models", new JsonArray())
        .put("engines", engines("vllm")));
    assertThat(noModels.statusCode()).isEqualTo(400);
    assertThat(noModels.bodyAsJsonObject().getString("error")).contains("models");

    HttpResponse<Buffer> unknownEngine = create("bad engine", new JsonObject().put("models", twoModels())
        .put("engines", engines("vllm", "warp-drive")));
    assertThat(unknownEngine.statusCode()).isEqualTo(400);
    assertThat(unknownEngine.bodyAsJsonObject().getString("error")).contains("warp-drive");

    HttpResponse<Buffer> unknownAgent = server.post("/api/v1/campaigns", campaign("ghost",
        new JsonObject().put("models", twoModels()).put("engines", engines("vllm"))).put("agent_id", "0123456789abcdef"));
    assertThat(unknownAgent.statusCode()).isEqualTo(404);
    assertThat(unknownAgent.bodyAsJsonObject().getString("error")).contains("0123456789abcdef");

    assertThat(server.get("/api/v1/campaigns").bodyAsJsonObject().getLong("total")).isZero();
  }

  @Test
  void listFiltersByStatusAndPaginates() {
    String first = createDraft("first");
    createDraft("second");
    createDraft("third");
    try (EventWaiter events = EventWaiter.source(server.vertx(), first)) {
      assertThat(call(HttpMethod.POST, "/api/v1/campaigns/" + first + "/launch").statusCode()).isEqualTo(202);
      // The executor picks the launched campaign up at once.
      events.status("running", java.time.Duration.ofSeconds(10));
    }

    JsonObject running = server.get("/api/v1/campaigns?status=running").bodyAsJsonObject();
    assertThat(running.getLong("total")).isEqualTo(1);
    assertThat(running.getJsonArray("items").getJsonObject(0).getString("id")).isEqualTo(first);
    JsonObject drafts = server.get("/api/v1/campaigns?status=draft").bodyAsJsonObject();
    assertThat(drafts.getLong("total")).isEqualTo(2);
    assertThat(drafts.getJsonArray("items").stream().map(JsonObject.class::cast).map(c -> c.getString("status")))
        .containsOnly("draft");

    JsonObject page2 = server.get("/api/v1/campaigns?per_page=2&page=2").bodyAsJsonObject();
    assertThat(page2.getInteger("page")).isEqualTo(2);
    assertThat(page2.getInteger("per_page")).isEqualTo(2);
    assertThat(page2.getInteger("pages")).isEqualTo(2);
    assertThat(page2.getLong("total")).isEqualTo(3);
    assertThat(page2.getJsonArray("items")).hasSize(1);

    assertThat(server.get("/api/v1/campaigns?status=sleeping").statusCode()).isEqualTo(400);
  }

  @Test
  void launchCancelLogsAndDeleteFollowTheStateRules() {
    String id = createDraft("lifecycle");
    String base = "/api/v1/campaigns/" + id;

    HttpResponse<Buffer> draftLogs = server.get(base + "/logs");
    assertThat(draftLogs.statusCode()).isEqualTo(200);
    assertThat(draftLogs.bodyAsJsonObject().getJsonArray("lines")).isEmpty();

    HttpResponse<Buffer> launched = call(HttpMethod.POST, base + "/launch");
    assertThat(launched.statusCode()).isEqualTo(202);
    assertThat(launched.bodyAsJsonObject().getString("status")).isEqualTo("queued");

    HttpResponse<Buffer> again = call(HttpMethod.POST, base + "/launch");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.bodyAsJsonObject().getString("error")).isNotBlank();

    HttpResponse<Buffer> cancelled = call(HttpMethod.POST, base + "/cancel");
    assertThat(cancelled.statusCode()).isEqualTo(200);
    assertThat(cancelled.bodyAsJsonObject().getString("status")).isEqualTo("cancelled");
    assertThat(server.get(base).bodyAsJsonObject().getString("status")).isEqualTo("cancelled");

    HttpResponse<Buffer> cancelAgain = call(HttpMethod.POST, base + "/cancel");
    assertThat(cancelAgain.statusCode()).isEqualTo(409);
    assertThat(cancelAgain.bodyAsJsonObject().getString("error")).isNotBlank();

    HttpResponse<Buffer> logs = server.get(base + "/logs");
    assertThat(logs.statusCode()).isEqualTo(200);
    assertThat(logs.bodyAsJsonObject().getValue("lines")).isInstanceOf(JsonArray.class);

    HttpResponse<Buffer> deleted = call(HttpMethod.DELETE, base);
    assertThat(deleted.statusCode()).isEqualTo(200);
    assertThat(deleted.bodyAsJsonObject().getBoolean("deleted")).isTrue();
    assertThat(server.get(base).statusCode()).isEqualTo(404);
    assertThat(server.get(base + "/logs").statusCode()).isEqualTo(404);
    assertThat(call(HttpMethod.DELETE, base).statusCode()).isEqualTo(404);
  }

  @Test
  void unknownCampaignIsNotFoundEverywhere() {
    String base = "/api/v1/campaigns/0123456789abcdef";
    assertThat(server.get(base).statusCode()).isEqualTo(404);
    assertThat(server.get(base + "/logs").statusCode()).isEqualTo(404);
    assertThat(call(HttpMethod.POST, base + "/launch").statusCode()).isEqualTo(404);
    assertThat(call(HttpMethod.POST, base + "/cancel").statusCode()).isEqualTo(404);
    assertThat(call(HttpMethod.DELETE, base).statusCode()).isEqualTo(404);
  }
}
