package dev.svc.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agents as resources: test agents, capabilities, edits, deletion with history, tokens and cleanup. */
class AgentLifecycleTest {

  private static final String AGENT_TOKEN = "a1".repeat(32);

  @TempDir
  Path home;

  private static HttpResponse<Buffer> createTestAgent(TestServer server, JsonObject body) {
    return server.post("/api/v1/agents/test", body);
  }

  private static String testAgent(TestServer server, String name, String arch) {
    HttpResponse<Buffer> created = createTestAgent(server, new JsonObject().put("name", name).put("cpu_arch", arch));
    assertThat(created.statusCode()).isEqualTo(201);
    return created.bodyAsJsonObject().getString("id");
  }

  /** Registers a real agent on an insecure server (no client certificate needed) with its own token. */
  private static String registerRealAgent(TestServer server, String name) {
    HttpResponse<Buffer> registered = server.post("/api/v1/agents/register", AGENT_TOKEN,
        new JsonObject().put("name", name).put("hostname", name + ".lab").put("cpu_arch", "x86_64"));
    assertThat(registered.statusCode()).isEqualTo(201);
    return registered.bodyAsJsonObject().getString("agent_id");
  }

  private static HttpResponse<Buffer> send(TestServer server, HttpMethod method, String path, Object body) {
    return TestServer.send(server.client(), method, path, null, body);
  }

  @Test
  void testAgentIntegerFieldsAreValidated() {
    try (TestServer server = TestServer.start(home)) {
      HttpResponse<Buffer> words = createTestAgent(server, new JsonObject().put("name", "sim").put("gpu_count", "two"));
      assertThat(words.statusCode()).isEqualTo(400);
      assertThat(words.bodyAsJsonObject().getString("error")).contains("gpu_count");

      HttpResponse<Buffer> negative = createTestAgent(server, new JsonObject().put("name", "sim").put("ram_gb", -1));
      assertThat(negative.statusCode()).isEqualTo(400);
      assertThat(negative.bodyAsJsonObject().getString("error")).contains("ram_gb");

      assertThat(server.get("/api/v1/agents").bodyAsJsonArray()).isEmpty();
    }
  }

  @Test
  void testAgentIsMarkedAsSuchWithPortZeroAndNoToken() {
    try (TestServer server = TestServer.start(home)) {
      HttpResponse<Buffer> created = createTestAgent(server, new JsonObject().put("name", "sim").put("gpu_info", "NVIDIA A100")
          .put("gpu_count", "4").put("cpu_arch", "aarch64").put("ram_gb", 256).put("environment_type", "dgx"));

      assertThat(created.statusCode()).isEqualTo(201);
      JsonObject agent = created.bodyAsJsonObject();
      assertThat(agent.getString("id")).matches("[0-9a-f]{16}");
      assertThat(agent.getBoolean("is_test_agent")).isTrue();
      assertThat(agent.getInteger("port")).isZero();
      assertThat(agent.getBoolean("has_token")).isFalse();
      assertThat(agent.getString("cpu_arch")).isEqualTo("arm64");
      assertThat(agent.getInteger("gpu_count")).isEqualTo(4);
      assertThat(agent.getInteger("ram_gb")).isEqualTo(256);
      JsonObject listed = server.get("/api/v1/agents").bodyAsJsonArray().getJsonObject(0);
      assertThat(listed.getString("id")).isEqualTo(agent.getString("id"));
      assertThat(listed.getBoolean("is_test_agent")).isTrue();
    }
  }

  @Test
  void capabilitiesMarkTgiIncompatibleOnArm64Only() {
    try (TestServer server = TestServer.start(home)) {
      String arm = testAgent(server, "sim-arm", "arm64");
      String x86 = testAgent(server, "sim-x86", "amd64");

      HttpResponse<Buffer> response = server.get("/api/v1/quicktest/agent-capabilities");

      assertThat(response.statusCode()).isEqualTo(200);
      JsonObject armEngines = response.bodyAsJsonObject().getJsonObject(arm).getJsonObject("engines");
      assertThat(response.bodyAsJsonObject().getJsonObject(arm).getString("name")).isEqualTo("sim-arm");
      assertThat(armEngines.getJsonObject("tgi").getBoolean("compatible")).isFalse();
      assertThat(armEngines.getJsonObject("tgi").getString("reason")).containsIgnoringCase("arm64");
      for (String engine : new String[] {"vllm", "llama_cpp", "ollama"}) {
        assertThat(armEngines.getJsonObject(engine).getBoolean("compatible")).as(engine).isTrue();
      }
      JsonObject x86Engines = response.bodyAsJsonObject().getJsonObject(x86).getJsonObject("engines");
      assertThat(x86Engines.fieldNames()).containsExactlyInAnyOrder("vllm", "tgi", "llama_cpp", "ollama");
      for (String engine : x86Engines.fieldNames()) {
        assertThat(x86Engines.getJsonObject(engine).getBoolean("compatible")).as(engine).isTrue();
        assertThat(x86Engines.getJsonObject(engine).getString("reason")).as(engine).isNull();
      }
    }
  }

  @Test
  void engineFormatsListTheFourEngines() {
    try (TestServer server = TestServer.start(home)) {
      HttpResponse<Buffer> response = server.get("/api/v1/quicktest/engine-formats");

      assertThat(response.statusCode()).isEqualTo(200);
      JsonObject formats = response.bodyAsJsonObject();
      assertThat(formats.fieldNames()).containsExactlyInAnyOrder("vllm", "tgi", "llama_cpp", "ollama");
      assertThat(formats.getJsonArray("vllm").getList()).containsExactly("safetensors", "pytorch");
      assertThat(formats.getJsonArray("tgi").getList()).containsExactly("safetensors", "pytorch");
      assertThat(formats.getJsonArray("llama_cpp").getList()).containsExactly("gguf");
      assertThat(formats.getJsonArray("ollama").getList()).containsExactly("gguf");
    }
  }

  @Test
  void patchChangesNameNotesAndTagsAndRefusesOtherFields() {
    try (TestServer server = TestServer.start(home)) {
      String id = testAgent(server, "sim", "amd64");

      HttpResponse<Buffer> patched = send(server, HttpMethod.PATCH, "/api/v1/agents/" + id, new JsonObject()
          .put("name", "sim-renamed").put("notes", "rack 4").put("tags", new JsonArray().add("h100").add("lab")));

      assertThat(patched.statusCode()).isEqualTo(200);
      JsonObject stored = server.get("/api/v1/agents/" + id).bodyAsJsonObject();
      assertThat(stored.getString("name")).isEqualTo("sim-renamed");
      assertThat(stored.getString("notes")).isEqualTo("rack 4");
      assertThat(stored.getJsonArray("tags").getList()).containsExactly("h100", "lab");

      HttpResponse<Buffer> refused = send(server, HttpMethod.PATCH, "/api/v1/agents/" + id, new JsonObject().put("port", 1));
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(refused.bodyAsJsonObject().getString("error")).contains("port");
      assertThat(send(server, HttpMethod.PATCH, "/api/v1/agents/0123456789abcdef",
          new JsonObject().put("notes", "x")).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void deletedAgentDisappearsButItsQuickTestsStillShowIt() {
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure())) {
      String id = registerRealAgent(server, "gpu-node-1");
      HttpResponse<Buffer> submitted = server.post("/api/v1/quicktest", new JsonObject().put("agent_id", id)
          .put("model_path", "/models/llama-8b").put("engine_name", "vllm"));
      assertThat(submitted.statusCode()).isEqualTo(202);
      String testId = submitted.bodyAsJsonObject().getString("id");

      HttpResponse<Buffer> deleted = send(server, HttpMethod.DELETE, "/api/v1/agents/" + id, null);

      assertThat(deleted.statusCode()).isEqualTo(200);
      assertThat(deleted.bodyAsJsonObject().getBoolean("deleted")).isTrue();
      assertThat(server.get("/api/v1/agents").bodyAsJsonArray().stream().map(JsonObject.class::cast)
          .map(a -> a.getString("id"))).doesNotContain(id);
      assertThat(server.get("/api/v1/agents/" + id).statusCode()).isEqualTo(404);
      assertThat(send(server, HttpMethod.DELETE, "/api/v1/agents/" + id, null).statusCode()).isEqualTo(404);

      HttpResponse<Buffer> test = server.get("/api/v1/quicktest/" + testId);
      assertThat(test.statusCode()).isEqualTo(200);
      assertThat(test.bodyAsJsonObject().getString("agent_name")).isEqualTo("gpu-node-1");
      assertThat(test.bodyAsJsonObject().getBoolean("agent_deleted")).isTrue();
      HttpResponse<Buffer> history = server.get("/api/v1/quicktest");
      assertThat(history.statusCode()).isEqualTo(200);
      assertThat(history.bodyAsJsonObject().getJsonArray("items").getJsonObject(0).getString("agent_name"))
          .isEqualTo("gpu-node-1");
      assertThat(server.get("/api/v1/quicktest/" + testId + "/logs").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void rotateTokenIssuesA64HexTokenForRealAgentsOnly() {
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure())) {
      String real = registerRealAgent(server, "gpu-node-1");
      String simulated = testAgent(server, "sim", "amd64");

      HttpResponse<Buffer> rotated = server.post("/api/v1/agents/" + real + "/rotate-token", new JsonObject());

      assertThat(rotated.statusCode()).isEqualTo(200);
      String token = rotated.bodyAsJsonObject().getString("token");
      assertThat(token).matches("[0-9a-f]{64}").isNotEqualTo(AGENT_TOKEN);
      assertThat(rotated.bodyAsJsonObject().getString("agent_id")).isEqualTo(real);
      assertThat(rotated.bodyAsJsonObject().getString("token_prefix")).isEqualTo(token.substring(0, 8));
      JsonObject agent = server.get("/api/v1/agents/" + real).bodyAsJsonObject();
      assertThat(agent.getBoolean("has_token")).isTrue();
      assertThat(agent.getString("token_prefix")).isEqualTo(token.substring(0, 8));
      assertThat(agent.encode()).doesNotContain(token);
      // The new token is the one that counts now.
      HttpResponse<Buffer> oldToken = server.post("/api/v1/agents/" + real + "/heartbeat", AGENT_TOKEN, new JsonObject());
      assertThat(oldToken.statusCode()).isEqualTo(403);
      HttpResponse<Buffer> newToken = server.post("/api/v1/agents/" + real + "/heartbeat", token, new JsonObject());
      assertThat(newToken.statusCode()).isEqualTo(200);

      HttpResponse<Buffer> refused = server.post("/api/v1/agents/" + simulated + "/rotate-token", new JsonObject());
      assertThat(refused.statusCode()).isEqualTo(409);
      assertThat(refused.bodyAsJsonObject().getString("error")).isNotBlank();
    }
  }

  @Test
  void cleanupQueuesACommandDeliveredInTheNextHeartbeat() {
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure())) {
      String id = registerRealAgent(server, "gpu-node-1");

      HttpResponse<Buffer> queued = server.post("/api/v1/agents/" + id + "/cleanup",
          new JsonObject().put("model_path", "~/.svc/models/llama-8b")); // inside its model storage directory

      assertThat(queued.statusCode()).isEqualTo(202);
      String commandId = queued.bodyAsJsonObject().getString("command_id");
      assertThat(commandId).matches("[0-9a-f]{16}");
      assertThat(queued.bodyAsJsonObject().getBoolean("queued")).isTrue();

      HttpResponse<Buffer> heartbeat = server.post("/api/v1/agents/" + id + "/heartbeat", AGENT_TOKEN,
          new JsonObject().put("status", "idle"));
      assertThat(heartbeat.statusCode()).isEqualTo(200);
      JsonArray commands = heartbeat.bodyAsJsonObject().getJsonArray("commands");
      JsonObject cleanup = commands.stream().map(JsonObject.class::cast)
          .filter(c -> commandId.equals(c.getString("command_id"))).findFirst().orElse(null);
      assertThat(cleanup).as("cleanup command in %s", commands).isNotNull();
      assertThat(cleanup.getString("type")).isEqualTo("cleanup_storage");
      assertThat(cleanup.getJsonObject("payload").getString("model_path")).isEqualTo("~/.svc/models/llama-8b");
    }
  }

  @Test
  void cleanupWithoutBodyMeansEveryCachedModel() {
    try (TestServer server = TestServer.start(home, new TestServer.Options().insecure())) {
      String id = registerRealAgent(server, "gpu-node-1");

      HttpResponse<Buffer> queued = server.post("/api/v1/agents/" + id + "/cleanup", null);
      assertThat(queued.statusCode()).isEqualTo(202);

      JsonArray commands = server.post("/api/v1/agents/" + id + "/heartbeat", AGENT_TOKEN, new JsonObject())
          .bodyAsJsonObject().getJsonArray("commands");
      assertThat(commands).hasSize(1);
      assertThat(commands.getJsonObject(0).getString("type")).isEqualTo("cleanup_storage");
      assertThat(commands.getJsonObject(0).getJsonObject("payload").getString("model_path")).isEmpty();
    }
  }

  @Test
  void cleanupOfATestAgentIsAConflict() {
    try (TestServer server = TestServer.start(home)) {
      String id = testAgent(server, "sim", "amd64");

      HttpResponse<Buffer> refused = server.post("/api/v1/agents/" + id + "/cleanup", new JsonObject());

      assertThat(refused.statusCode()).isEqualTo(409);
      assertThat(refused.bodyAsJsonObject().getString("error")).isNotBlank();
    }
  }
  @Test
  void deletedAgentsCampaignStillShowsTheAgentAsDeleted() {
    try (TestServer server = TestServer.start(home)) {
      String id = testAgent(server, "sim", "amd64");
      HttpResponse<Buffer> created = server.post("/api/v1/campaigns", new JsonObject().put("name", "nightly")
          .put("agent_id", id).put("config", new JsonObject()
              .put("models", new JsonArray().add(new JsonObject().put("name", "m").put("path", "/models/m")))
              .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")))));
      assertThat(created.statusCode()).isEqualTo(201);
      String campaignId = created.bodyAsJsonObject().getString("id");

      assertThat(send(server, HttpMethod.DELETE, "/api/v1/agents/" + id, null).statusCode()).isEqualTo(200);

      HttpResponse<Buffer> campaign = server.get("/api/v1/campaigns/" + campaignId);
      assertThat(campaign.statusCode()).isEqualTo(200);
      assertThat(campaign.bodyAsJsonObject().getString("agent_name")).isEqualTo("sim");
      assertThat(server.get("/api/v1/campaigns").statusCode()).isEqualTo(200);
      // protocol.md 2.3: after DELETE, history (tests, results, campaigns) "shows the agent as deleted";
      // quick tests carry agent_deleted, campaigns should too.
      assertThat(campaign.bodyAsJsonObject().getBoolean("agent_deleted")).as("campaign.agent_deleted").isTrue();
    }
  }
}
