package dev.svc.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the pages show, made through the REST API: a model directory with a manifest, test agents,
 * finished quick tests with their results, and a finished campaign ({@link #populate} returns the
 * ids the page list's placeholders name: {agent}, {test}, {result}, {result2}, {campaign}); and,
 * for the tests that act on runs, quick tests and campaigns stopped at a given status.
 */
final class SiteData {

  static final String GGUF_MODEL = "llama-3-8b-instruct-q4_k_m.gguf";
  static final String GGUF_MODEL_2 = "phi-3-mini-4k-instruct-q8_0.gguf";
  static final String SAFETENSORS_MODEL = "mistral-7b-instruct-v0.3";
  static final String SAFETENSORS_MODEL_2 = "qwen2-7b-instruct";
  static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

  private SiteData() {
  }

  /**
   * A model directory as the catalog expects it: two .gguf files, two directories of safetensors
   * weights, and manifest.json listing them (paths relative to the directory, sizes in bytes).
   */
  static Path modelDirectory(Path dir) {
    try {
      Files.createDirectories(dir);
      JsonArray manifest = new JsonArray();
      for (String gguf : new String[] {GGUF_MODEL, GGUF_MODEL_2}) {
        Files.write(dir.resolve(gguf), "GGUF\3\0\0\0 tiny placeholder weights".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        manifest.add(new JsonObject().put("model_id", gguf.replace(".gguf", "")).put("path", gguf)
            .put("size_bytes", 4_920_000_000L));
      }
      for (String model : new String[] {SAFETENSORS_MODEL, SAFETENSORS_MODEL_2}) {
        Path weights = Files.createDirectories(dir.resolve(model));
        Files.writeString(weights.resolve("config.json"), "{\"architectures\":[\"LlamaForCausalLM\"]}");
        Files.writeString(weights.resolve("model-00001-of-00001.safetensors"), "placeholder");
        manifest.add(new JsonObject().put("model_id", model).put("path", model).put("size_bytes", 14_500_000_000L));
      }
      Files.writeString(dir.resolve("manifest.json"), new JsonObject().put("models", manifest).encodePrettily());
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates a test agent through the API and returns its id. */
  static String testAgent(TestServer server, String token, String name, String arch) {
    HttpResponse<Buffer> created = server.post("/api/v1/agents/test", token, new JsonObject().put("name", name)
        .put("gpu_info", "NVIDIA H100 80GB HBM3").put("gpu_count", 1).put("cpu_arch", arch));
    assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(201);
    return created.bodyAsJsonObject().getString("id");
  }

  /** Runs a quick test on a test agent to completion; returns {test id, result id}. */
  static String[] completedQuickTest(TestServer server, String token, String agent, String modelPath, String engine) {
    String id = quickTestUntil(server, token, agent, modelPath, engine, "completed");
    String result = server.get("/api/v1/quicktest/" + id, token).bodyAsJsonObject().getString("result_id");
    assertThat(result).as("result of quick test " + id).isNotBlank();
    return new String[] {id, result};
  }

  /** Submits a quick test of the throughput benchmark and waits until it has this status; returns its id. */
  static String quickTestUntil(TestServer server, String token, String agent, String modelPath, String engine,
      String status) {
    try (EventWaiter events = EventWaiter.everything(server.vertx())) {
      HttpResponse<Buffer> submitted = server.post("/api/v1/quicktest", token, new JsonObject().put("agent_id", agent)
          .put("model_path", modelPath).put("engine_name", engine).put("benchmark_name", "throughput"));
      assertThat(submitted.statusCode()).as(submitted.bodyAsString()).isEqualTo(202);
      String id = submitted.bodyAsJsonObject().getString("id");
      events.next(e -> isStatus(e, "test_id", id, status), RUN_TIMEOUT);
      return id;
    }
  }

  /** Creates and launches a campaign of these models on one engine and waits until it completed. */
  static String completedCampaign(TestServer server, String token, String agent, String engine, String... modelPaths) {
    String id = draftCampaign(server, token, agent, engine, modelPaths);
    launchCampaignUntil(server, token, id, "completed");
    return id;
  }

  /** Creates (and does not launch) a campaign of these models on one engine; returns its id. */
  static String draftCampaign(TestServer server, String token, String agent, String engine, String... modelPaths) {
    JsonArray models = new JsonArray();
    for (String path : modelPaths) {
      models.add(new JsonObject().put("name", Path.of(path).getFileName().toString()).put("path", path));
    }
    JsonObject config = new JsonObject().put("models", models)
        .put("engines", new JsonArray().add(new JsonObject().put("name", engine)));
    HttpResponse<Buffer> created = server.post("/api/v1/campaigns", token, new JsonObject().put("name", "nightly matrix")
        .put("agent_id", agent).put("config", config));
    assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(201);
    return created.bodyAsJsonObject().getString("id");
  }

  /** Launches a campaign through the API and waits until it has this status. */
  static void launchCampaignUntil(TestServer server, String token, String id, String status) {
    try (EventWaiter events = EventWaiter.everything(server.vertx())) {
      HttpResponse<Buffer> launched = server.post("/api/v1/campaigns/" + id + "/launch", token, new JsonObject());
      assertThat(launched.statusCode()).as(launched.bodyAsString()).isEqualTo(202);
      events.next(e -> isStatus(e, "campaign_id", id, status), RUN_TIMEOUT);
    }
  }

  private static boolean isStatus(JsonObject event, String key, String id, String status) {
    JsonObject data = event.getJsonObject("data");
    return "status".equals(event.getString("type")) && data != null && id.equals(data.getString(key))
        && status.equals(data.getString("status"));
  }

  /**
   * Everything every page needs: an x86_64 and an arm64 test agent, two finished quick tests with
   * results, and a finished campaign of two models.
   */
  static Map<String, String> populate(TestServer server, String token, Path modelDir) {
    Map<String, String> ids = new LinkedHashMap<>();
    String agent = testAgent(server, token, "sim-h100", "x86_64");
    ids.put("agent", agent);
    ids.put("arm_agent", testAgent(server, token, "sim-grace", "arm64"));
    String[] first = completedQuickTest(server, token, agent, modelDir.resolve(SAFETENSORS_MODEL).toString(), "vllm");
    String[] second = completedQuickTest(server, token, agent, modelDir.resolve(GGUF_MODEL).toString(), "llama_cpp");
    ids.put("test", first[0]);
    ids.put("result", first[1]);
    ids.put("result2", second[1]);
    ids.put("campaign", completedCampaign(server, token, agent, "vllm",
        modelDir.resolve(SAFETENSORS_MODEL).toString(), modelDir.resolve(SAFETENSORS_MODEL_2).toString()));
    return ids;
  }
}
