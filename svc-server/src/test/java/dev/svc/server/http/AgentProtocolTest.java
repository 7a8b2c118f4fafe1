package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole agent protocol over HTTPS with mutual TLS, on a server that has a global token: an
 * agent provisioned by the server registers, heartbeats, receives its settings and a run_test
 * command, reports running / logs / completed with its own token and submits its result.
 */
class AgentProtocolTest {

  private static final String GLOBAL = "global-secret-token";

  @TempDir
  Path home;

  private TestServer server;
  private WebClient agent;

  @BeforeEach
  void start() throws Exception {
    TestServer.Options options = new TestServer.Options().authToken(GLOBAL);
    server = TestServer.start(home, databaseUrl() == null ? options : options.dbUrl(databaseUrl()));
    agent = server.agentClient("gpu-node-1");
  }

  /** The server's database: null for the default, SQLite under the test's home. */
  String databaseUrl() throws java.sql.SQLException {
    return null;
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<Buffer> agentCall(HttpMethod method, String path, String token, Object body) {
    return TestServer.send(agent, method, path, token, body);
  }

  private static JsonObject registration(String name) {
    return new JsonObject().put("name", name).put("hostname", "node1.lab").put("port", 8090)
        .put("gpu_info", "NVIDIA H100 80GB HBM3 80GB").put("gpu_count", 8).put("cpu_info", "AMD EPYC 9654")
        .put("cpu_arch", "x86_64").put("ram_gb", 1024).put("environment_type", "native_linux")
        .put("fingerprint", "h100_x8_epyc").put("kitt_version", "1.6.2")
        .put("capabilities", new JsonArray().add("vllm").add("llama_cpp"))
        .put("hardware_details", new JsonObject().put("gpu_model", "H100").put("cuda_version", "12.4").encode());
  }

  @Test
  void agentProtocolRunsEndToEndWithMutualTlsAndItsOwnToken() {
    // The server issues the agent's token (provisioning); the agent never sees the global token.
    HttpResponse<Buffer> provisioned = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-node-1"));
    assertThat(provisioned.statusCode()).isEqualTo(201);
    String token = provisioned.bodyAsJsonObject().getString("token");
    assertThat(token).matches("[0-9a-f]{64}");

    // Registration: 201 with the issued token (now bound), 403 with a wrong one.
    HttpResponse<Buffer> registered = agentCall(HttpMethod.POST, "/api/v1/agents/register", token, registration("gpu-node-1"));
    assertThat(registered.statusCode()).isEqualTo(201);
    String agentId = registered.bodyAsJsonObject().getString("agent_id");
    assertThat(agentId).isEqualTo(provisioned.bodyAsJsonObject().getString("agent_id"));
    assertThat(registered.bodyAsJsonObject().getInteger("heartbeat_interval_s")).isEqualTo(30);
    HttpResponse<Buffer> wrong = agentCall(HttpMethod.POST, "/api/v1/agents/register", "f".repeat(64), registration("gpu-node-1"));
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(wrong.bodyAsJsonObject().getString("error")).isNotBlank();
    HttpResponse<Buffer> none = agentCall(HttpMethod.POST, "/api/v1/agents/register", null, registration("gpu-node-1"));
    assertThat(none.statusCode()).isEqualTo(401);

    JsonObject stored = server.get("/api/v1/agents/" + agentId, GLOBAL).bodyAsJsonObject();
    assertThat(stored.getString("cpu_arch")).isEqualTo("amd64");
    assertThat(stored.getJsonArray("capabilities")).containsExactly("vllm", "llama_cpp");
    assertThat(stored.getJsonObject("hardware_details").getString("cuda_version")).isEqualTo("12.4");
    assertThat(stored.getString("agent_version")).isEqualTo("1.6.2");
    assertThat(stored.containsKey("token_hash")).isFalse();

    // Heartbeat: string settings, every key; name fallback gives the canonical id; unknown → 404.
    JsonObject beat = new JsonObject().put("status", "idle").put("current_task", "").put("gpu_utilization_pct", 12.5)
        .put("gpu_memory_used_gb", 3.25).put("storage_gb_free", 812.0).put("uptime_s", 3600);
    HttpResponse<Buffer> hb = agentCall(HttpMethod.POST, "/api/v1/agents/" + agentId + "/heartbeat", token, beat);
    assertThat(hb.statusCode()).isEqualTo(200);
    JsonObject settings = hb.bodyAsJsonObject().getJsonObject("settings");
    assertThat(settings.fieldNames()).containsExactlyInAnyOrder("model_storage_dir", "model_share_source",
        "model_share_mount", "auto_cleanup", "heartbeat_interval_s", "kitt_image");
    settings.forEach(e -> assertThat(e.getValue()).isInstanceOf(String.class));
    assertThat(settings.getString("heartbeat_interval_s")).isEqualTo("30");
    assertThat(hb.bodyAsJsonObject().getJsonArray("commands")).isEmpty();

    HttpResponse<Buffer> byName = agentCall(HttpMethod.POST, "/api/v1/agents/gpu-node-1/heartbeat", token, beat);
    assertThat(byName.statusCode()).isEqualTo(200);
    assertThat(byName.bodyAsJsonObject().getString("agent_id")).isEqualTo(agentId);
    assertThat(agentCall(HttpMethod.POST, "/api/v1/agents/no-such-agent/heartbeat", token, beat).statusCode())
        .isEqualTo(404);
    JsonObject metrics = server.get("/api/v1/agents/" + agentId, GLOBAL).bodyAsJsonObject();
    assertThat(metrics.getDouble("gpu_utilization_pct")).isEqualTo(12.5);
    assertThat(metrics.getDouble("storage_gb_free")).isEqualTo(812.0);
    assertThat(metrics.getString("last_heartbeat_at")).isNotNull();

    // Settings: 9 and 301 refused, 45 stored and delivered in the next heartbeat.
    String settingsPath = "/api/v1/agents/" + agentId + "/settings";
    assertThat(server.put(settingsPath, GLOBAL, new JsonObject().put("heartbeat_interval_s", 9)).statusCode()).isEqualTo(400);
    assertThat(server.put(settingsPath, GLOBAL, new JsonObject().put("heartbeat_interval_s", 301)).statusCode()).isEqualTo(400);
    HttpResponse<Buffer> ok = server.put(settingsPath, GLOBAL, new JsonObject().put("heartbeat_interval_s", 45));
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.bodyAsJsonObject().getString("heartbeat_interval_s")).isEqualTo("45");
    hb = agentCall(HttpMethod.POST, "/api/v1/agents/" + agentId + "/heartbeat", token, beat);
    assertThat(hb.bodyAsJsonObject().getJsonObject("settings").getString("heartbeat_interval_s")).isEqualTo("45");

    // A quick test is queued (202) and handed out as run_test in the next heartbeat.
    HttpResponse<Buffer> submitted = server.post("/api/v1/quicktest", GLOBAL, new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/llama-3-8b").put("engine_name", "vllm").put("benchmark_name", "throughput"));
    assertThat(submitted.statusCode()).isEqualTo(202);
    String testId = submitted.bodyAsJsonObject().getString("id");
    String commandId = submitted.bodyAsJsonObject().getString("command_id");
    assertThat(submitted.bodyAsJsonObject().getString("status")).isEqualTo("queued");

    hb = agentCall(HttpMethod.POST, "/api/v1/agents/" + agentId + "/heartbeat", token, beat);
    JsonArray commands = hb.bodyAsJsonObject().getJsonArray("commands");
    assertThat(commands).hasSize(1);
    JsonObject command = commands.getJsonObject(0);
    assertThat(command.getString("type")).isEqualTo("run_test");
    assertThat(command.getString("test_id")).isEqualTo(testId);
    assertThat(command.getString("command_id")).isEqualTo(commandId);
    assertThat(command.getJsonObject("payload").getString("model_path")).isEqualTo("/models/llama-3-8b");
    assertThat(command.getJsonObject("payload").getString("engine_name")).isEqualTo("vllm");
    assertThat(server.get("/api/v1/quicktest/" + testId, GLOBAL).bodyAsJsonObject().getString("status"))
        .isEqualTo("dispatched");
    // Not handed out twice: while the agent shows no sign of it, the same command comes again; not once acknowledged.
    hb = agentCall(HttpMethod.POST, "/api/v1/agents/" + agentId + "/heartbeat", token, beat);
    assertThat(hb.bodyAsJsonObject().getJsonArray("commands")).containsExactly(command);
    hb = agentCall(HttpMethod.POST, "/api/v1/agents/" + agentId + "/heartbeat", token,
        beat.copy().put("acked_command_ids", new JsonArray().add(commandId)));
    assertThat(hb.bodyAsJsonObject().getJsonArray("commands")).isEmpty();

    // running / logs / completed with the agent's own token while a global token is set.
    String base = "/api/v1/quicktest/" + testId;
    HttpResponse<Buffer> running = agentCall(HttpMethod.POST, base + "/status", token, new JsonObject().put("status", "running"));
    assertThat(running.statusCode()).isEqualTo(200);
    assertThat(running.bodyAsJsonObject().getString("status")).isEqualTo("running");
    assertThat(agentCall(HttpMethod.POST, base + "/logs", token, new JsonObject().put("line", "Starting vllm")).statusCode())
        .isEqualTo(200);
    JsonObject batch = new JsonObject().put("lines", new JsonArray().add("Health check passed").add("Benchmark done")).put("seq", 1);
    assertThat(agentCall(HttpMethod.POST, base + "/logs", token, batch).statusCode()).isEqualTo(200);
    assertThat(agentCall(HttpMethod.POST, base + "/logs", token, batch).statusCode()).isEqualTo(200);
    assertThat(agentCall(HttpMethod.POST, base + "/status", token, new JsonObject().put("status", "completed")).statusCode())
        .isEqualTo(200);
    assertThat(agentCall(HttpMethod.POST, base + "/status", token, new JsonObject().put("status", "running")).statusCode())
        .isEqualTo(409);
    JsonArray lines = server.get(base + "/logs", GLOBAL).bodyAsJsonObject().getJsonArray("lines");
    assertThat(lines.stream().map(l -> ((JsonObject) l).getString("line")))
        .containsExactly("Starting vllm", "Health check passed", "Benchmark done");

    // The result posted twice with one command_id is stored once and linked to the test.
    JsonObject metricsJson = new JsonObject().put("svc_version", "1.6.2").put("suite_name", "quick")
        .put("engine", "vllm").put("model", "/models/llama-3-8b").put("timestamp", "2026-11-22T10:00:00.000Z")
        .put("passed", true).put("results", new JsonArray().add(new JsonObject().put("test_name", "throughput")
            .put("passed", true).put("metrics", new JsonObject().put("avg_tps", 103.2))));
    JsonObject report = new JsonObject().put("command_id", commandId).put("test_id", testId).put("status", "completed")
        .put("error", "").put("result_data", metricsJson);
    HttpResponse<Buffer> first = agentCall(HttpMethod.POST, "/api/v1/agents/" + agentId + "/results", token, report);
    HttpResponse<Buffer> second = agentCall(HttpMethod.POST, "/api/v1/agents/" + agentId + "/results", token, report);
    assertThat(first.statusCode()).isEqualTo(202);
    assertThat(second.statusCode()).isEqualTo(202);
    String resultId = first.bodyAsJsonObject().getString("result_id");
    assertThat(resultId).isNotNull();
    assertThat(second.bodyAsJsonObject().getString("result_id")).isEqualTo(resultId);

    JsonObject results = server.get("/api/v1/results?engine=vllm", GLOBAL).bodyAsJsonObject();
    assertThat(results.getLong("total")).isEqualTo(1);
    JsonObject result = results.getJsonArray("items").getJsonObject(0);
    assertThat(result.getString("id")).isEqualTo(resultId);
    assertThat(result.getString("test_id")).isEqualTo(testId);
    assertThat(result.getString("agent_id")).isEqualTo(agentId);
    JsonObject test = server.get(base, GLOBAL).bodyAsJsonObject();
    assertThat(test.getString("status")).isEqualTo("completed");
    assertThat(test.getString("result_id")).isEqualTo(resultId);
    assertThat(test.getString("agent_name")).isEqualTo("gpu-node-1");
  }

  @Test
  void anotherAgentsTokenCannotReportOnATest() {
    String tokenA = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-node-1")).bodyAsJsonObject()
        .getString("token");
    String tokenB = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "node-b")).bodyAsJsonObject()
        .getString("token");
    String agentId = agentCall(HttpMethod.POST, "/api/v1/agents/register", tokenA, registration("gpu-node-1"))
        .bodyAsJsonObject().getString("agent_id");
    String testId = server.post("/api/v1/quicktest", GLOBAL, new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/m.gguf").put("engine_name", "llama_cpp")).bodyAsJsonObject().getString("id");
    HttpResponse<Buffer> foreign = agentCall(HttpMethod.POST, "/api/v1/quicktest/" + testId + "/status", tokenB,
        new JsonObject().put("status", "running"));
    assertThat(foreign.statusCode()).isEqualTo(403);
    assertThat(server.get("/api/v1/quicktest/" + testId, GLOBAL).bodyAsJsonObject().getString("status")).isEqualTo("queued");
  }

  @Test
  void anAgentListsItsOwnTestsWithItsOwnTokenAndNoOtherAgents() {
    String tokenA = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-node-1")).bodyAsJsonObject()
        .getString("token");
    JsonObject b = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "node-b")).bodyAsJsonObject();
    String idA = agentCall(HttpMethod.POST, "/api/v1/agents/register", tokenA, registration("gpu-node-1"))
        .bodyAsJsonObject().getString("agent_id");
    String idB = b.getString("agent_id");
    String testOfA = server.post("/api/v1/quicktest", GLOBAL, new JsonObject().put("agent_id", idA)
        .put("model_path", "/models/a.gguf").put("engine_name", "llama_cpp")).bodyAsJsonObject().getString("id");
    server.post("/api/v1/quicktest", GLOBAL, new JsonObject().put("agent_id", idB)
        .put("model_path", "/models/b.gguf").put("engine_name", "llama_cpp"));

    // svc-agent test list knows its name only: agent_id takes the name as the heartbeat path does
    for (String named : new String[] {idA, "gpu-node-1"}) {
      HttpResponse<Buffer> own = agentCall(HttpMethod.GET, "/api/v1/quicktest?agent_id=" + named, tokenA, null);
      assertThat(own.statusCode()).as("agent_id=%s", named).isEqualTo(200);
      JsonArray items = own.bodyAsJsonObject().getJsonArray("items");
      assertThat(items).hasSize(1);
      assertThat(items.getJsonObject(0).getString("id")).isEqualTo(testOfA);
    }
    assertThat(agentCall(HttpMethod.GET, "/api/v1/quicktest?agent_id=" + idB, tokenA, null).statusCode())
        .as("another agent's tests").isEqualTo(403);
    assertThat(agentCall(HttpMethod.GET, "/api/v1/quicktest", tokenA, null).statusCode())
        .as("every agent's tests").isEqualTo(403);
    assertThat(agentCall(HttpMethod.GET, "/api/v1/quicktest?agent_id=" + idA, null, null).statusCode()).isEqualTo(401);
    assertThat(server.get("/api/v1/quicktest?agent_id=" + idB, GLOBAL).bodyAsJsonObject().getJsonArray("items"))
        .hasSize(1);
  }

  @Test
  void anAgentCancelsItsOwnTestButNotAnotherAgents() {
    String tokenA = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-node-1")).bodyAsJsonObject()
        .getString("token");
    String tokenB = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "node-b")).bodyAsJsonObject()
        .getString("token");
    String agentId = agentCall(HttpMethod.POST, "/api/v1/agents/register", tokenA, registration("gpu-node-1"))
        .bodyAsJsonObject().getString("agent_id");
    String testId = server.post("/api/v1/quicktest", GLOBAL, new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/m.gguf").put("engine_name", "llama_cpp")).bodyAsJsonObject().getString("id");
    String cancel = "/api/v1/quicktest/" + testId + "/cancel";

    assertThat(agentCall(HttpMethod.POST, cancel, tokenB, new JsonObject()).statusCode()).isEqualTo(403);
    assertThat(agentCall(HttpMethod.POST, cancel, null, new JsonObject()).statusCode()).isEqualTo(401);
    assertThat(server.get("/api/v1/quicktest/" + testId, GLOBAL).bodyAsJsonObject().getString("status"))
        .isEqualTo("queued");

    HttpResponse<Buffer> own = agentCall(HttpMethod.POST, cancel, tokenA, new JsonObject());
    assertThat(own.statusCode()).isEqualTo(200);
    JsonObject test = server.get("/api/v1/quicktest/" + testId, GLOBAL).bodyAsJsonObject();
    assertThat(test.getString("status")).isEqualTo("failed");
    assertThat(test.getString("error")).isEqualTo("Cancelled by user");
    assertThat(agentCall(HttpMethod.POST, cancel, tokenA, new JsonObject()).statusCode()).as("already failed")
        .isEqualTo(409);
  }

  @Test
  void oneAgentNeverHasTwoActiveTests() {
    String token = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-node-1")).bodyAsJsonObject()
        .getString("token");
    String agentId = agentCall(HttpMethod.POST, "/api/v1/agents/register", token, registration("gpu-node-1"))
        .bodyAsJsonObject().getString("agent_id");
    for (int i = 0; i < 2; i++) {
      assertThat(server.post("/api/v1/quicktest", GLOBAL, new JsonObject().put("agent_id", agentId)
          .put("model_path", "/models/m" + i).put("engine_name", "vllm")).statusCode()).isEqualTo(202);
    }
    JsonObject beat = new JsonObject().put("status", "idle");
    String path = "/api/v1/agents/" + agentId + "/heartbeat";
    JsonArray first = agentCall(HttpMethod.POST, path, token, beat).bodyAsJsonObject().getJsonArray("commands");
    JsonArray second = agentCall(HttpMethod.POST, path, token, beat).bodyAsJsonObject().getJsonArray("commands");
    assertThat(first).hasSize(1);
    assertThat(first.getJsonObject(0).getJsonObject("payload").getString("model_path")).isEqualTo("/models/m0");
    assertThat(second).as("the first test's run_test again, unacknowledged; never the second test").isEqualTo(first);
    String firstTest = first.getJsonObject(0).getString("test_id");
    agentCall(HttpMethod.POST, "/api/v1/quicktest/" + firstTest + "/status", token, new JsonObject().put("status", "completed"));
    JsonArray third = agentCall(HttpMethod.POST, path, token, beat).bodyAsJsonObject().getJsonArray("commands");
    assertThat(third).hasSize(1);
    assertThat(third.getJsonObject(0).getJsonObject("payload").getString("model_path")).isEqualTo("/models/m1");
  }
}
