package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Values the server stores and shows or sends on are bounded: heartbeat metrics to what hardware
 * can report, kitt_image to an image reference, cleanup to the agent's model storage, and names,
 * hostnames, notes and tags to text without control characters, ANSI escapes or bidi overrides.
 */
class InputBoundsTest {

  /** Characters that forge log lines, repaint terminals or reorder what a reader sees. */
  private static final Map<String, String> HOSTILE = Map.of(
      "newline", "gpu\nINFO forged line",
      "ANSI escape", "gpu\u001b[31mred",
      "right-to-left override", "gpu\u202Etxt.exe",
      "first-strong isolate", "gpu\u2068x\u2069",
      "zero-width space", "gp\u200Bu",
      "DEL", "gpu\u007f",
      "C1 control", "gpu\u009b31m");

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.insecure());

  private static void assertRefused(HttpResponse<Buffer> response, String field, String what) {
    assertThat(response.statusCode()).as("%s: %s", what, response.bodyAsString()).isEqualTo(400);
    assertThat(response.bodyAsJsonObject().getString("error")).as(what).contains("'" + field + "'");
  }

  private static String register(TestServer server, String name) {
    HttpResponse<Buffer> registered = server.post("/api/v1/agents/register",
        new JsonObject().put("name", name).put("hostname", name + ".lab"));
    assertThat(registered.statusCode()).isEqualTo(201);
    return registered.bodyAsJsonObject().getString("agent_id");
  }

  @Test
  void heartbeatMetricsStayWithinWhatHardwareReports() {
    TestServer server = servers.start();
    String id = register(server, "metrics-node");
    String heartbeat = "/api/v1/agents/" + id + "/heartbeat";
    Map<String, Object> bad = Map.of(
        "gpu_utilization_pct", -5, "gpu_memory_used_gb", -0.5, "storage_gb_free", -1, "uptime_s", -10);
    bad.forEach((field, value) -> assertRefused(server.post(heartbeat, new JsonObject().put(field, value)), field,
        field + " " + value));
    assertRefused(server.post(heartbeat, new JsonObject().put("gpu_utilization_pct", 100.5)), "gpu_utilization_pct",
        "over 100 %");
    assertRefused(server.post(heartbeat, "{\"uptime_s\":1e400}"), "uptime_s", "infinite");

    HttpResponse<Buffer> fine = server.post(heartbeat, new JsonObject().put("gpu_utilization_pct", 100)
        .put("gpu_memory_used_gb", 0).put("storage_gb_free", 512.5).put("uptime_s", 3600));
    assertThat(fine.statusCode()).isEqualTo(200);
    JsonObject agent = server.get("/api/v1/agents/" + id).bodyAsJsonObject();
    assertThat(agent.getDouble("gpu_utilization_pct")).isEqualTo(100.0);
  }

  @Test
  void kittImageMustBeAnImageReference() {
    TestServer server = servers.start();
    String id = register(server, "image-node");
    String settings = "/api/v1/agents/" + id + "/settings";
    for (String image : List.of("--privileged", "-v /:/host alpine", "alpine; rm -rf /", "Alpine:latest",
        "registry.example.com/svc/kitt:1.6 extra", "$(id)")) {
      HttpResponse<Buffer> response = server.put(settings, null, new JsonObject().put("kitt_image", image));
      assertThat(response.statusCode()).as(image).isEqualTo(400);
      assertThat(response.bodyAsJsonObject().getString("error")).as(image).contains("kitt_image");
    }
    for (String image : List.of("", "alpine", "registry.example.com:5000/svc/kitt:1.6",
        "ghcr.io/org/kitt-runner@sha256:" + "a".repeat(64), "localhost/kitt_image.dev-1:v2")) {
      HttpResponse<Buffer> response = server.put(settings, null, new JsonObject().put("kitt_image", image));
      assertThat(response.statusCode()).as(image).isEqualTo(200);
      assertThat(response.bodyAsJsonObject().getString("kitt_image")).isEqualTo(image);
    }
  }

  @Test
  void cleanupStaysInsideTheModelStorage() {
    TestServer server = servers.start();
    String id = register(server, "storage-node");
    String cleanup = "/api/v1/agents/" + id + "/cleanup";
    // the default storage directory is ~/.svc/models
    for (String path : List.of("/", "/etc", "/etc/passwd", "~", "~/.svc", "~/.svc/models", "~/.svc/models/",
        "~root/.svc/models/x", "../x", "llama/../../x", "a//b", "./llama", "llama/.", "a\\b",
        "/home/user/.svc/models-other/x")) {
      HttpResponse<Buffer> response = server.post(cleanup, new JsonObject().put("model_path", path));
      assertThat(response.statusCode()).as(path + ": " + response.bodyAsString()).isEqualTo(400);
      assertThat(response.bodyAsJsonObject().getString("error")).contains("model_path");
    }
    for (String path : List.of("", "llama-3-8b", "org/llama-3-8b/", "~/.svc/models/llama-3-8b")) {
      assertThat(server.post(cleanup, new JsonObject().put("model_path", path)).statusCode()).as(path).isEqualTo(202);
    }
    // with an absolute storage directory, a path under it is fine and one beside it is not
    assertThat(server.put("/api/v1/agents/" + id + "/settings", null,
        new JsonObject().put("model_storage_dir", "/data/models/")).statusCode()).isEqualTo(200);
    assertThat(server.post(cleanup, new JsonObject().put("model_path", "/data/models/llama")).statusCode())
        .isEqualTo(202);
    assertThat(server.post(cleanup, new JsonObject().put("model_path", "/data/models-old/llama")).statusCode())
        .isEqualTo(400);
    assertThat(server.post(cleanup, new JsonObject().put("model_path", "/data/models")).statusCode()).isEqualTo(400);
  }

  @Test
  void namesAndTextsRefuseControlEscapeAndBidiCharacters() {
    TestServer server = servers.start();
    String id = register(server, "text-node");
    String campaignAgent = server.post("/api/v1/agents/test", new JsonObject().put("name", "text-sim"))
        .bodyAsJsonObject().getString("id");
    List<String> accepted = new ArrayList<>();
    HOSTILE.forEach((what, value) -> {
      check(accepted, what, "name", server.post("/api/v1/agents/register",
          new JsonObject().put("name", value).put("hostname", "h")));
      check(accepted, what, "hostname", server.post("/api/v1/agents/register",
          new JsonObject().put("name", "text-node").put("hostname", value)));
      check(accepted, what, "gpu_info", server.post("/api/v1/agents/register",
          new JsonObject().put("name", "text-node").put("hostname", "h").put("gpu_info", value)));
      check(accepted, what, "name", server.post("/api/v1/agents", new JsonObject().put("name", value)));
      check(accepted, what, "name", server.post("/api/v1/agents/test", new JsonObject().put("name", value)));
      check(accepted, what, "name", TestServer.send(server.client(), HttpMethod.PATCH, "/api/v1/agents/" + id, null,
          new JsonObject().put("name", value)));
      check(accepted, what, "tags", TestServer.send(server.client(), HttpMethod.PATCH, "/api/v1/agents/" + id, null,
          new JsonObject().put("tags", new JsonArray().add("ok").add(value))));
      check(accepted, what, "name", server.post("/api/v1/campaigns", new JsonObject().put("name", value)
          .put("agent_id", campaignAgent).put("config", new JsonObject()
              .put("models", new JsonArray().add("/models/llama-3-8b")).put("engines", new JsonArray().add("vllm"))
              .put("benchmarks", new JsonArray().add("throughput")))));
      if (!what.equals("newline")) {
        check(accepted, what, "notes", TestServer.send(server.client(), HttpMethod.PATCH, "/api/v1/agents/" + id, null,
            new JsonObject().put("notes", value)));
      }
    });
    assertThat(accepted).as("stored as given").isEmpty();

    // notes are free text: lines and tabs are fine, as are scripts that need zero-width joiners
    String notes = "rack 4, slot 2\n\tcheck the fans\nنیم\u200Cفاصله";
    HttpResponse<Buffer> patched = TestServer.send(server.client(), HttpMethod.PATCH, "/api/v1/agents/" + id, null,
        new JsonObject().put("notes", notes).put("name", "GPU box 7 — ünïcode ✓"));
    assertThat(patched.statusCode()).isEqualTo(200);
    assertThat(patched.bodyAsJsonObject().getString("notes")).isEqualTo(notes);
  }

  private static void check(List<String> accepted, String what, String field, HttpResponse<Buffer> response) {
    if (response.statusCode() != 400 || !response.bodyAsJsonObject().getString("error").contains("'" + field + "'")) {
      accepted.add(field + " with a " + what + " → " + response.statusCode() + " " + response.bodyAsString());
    }
  }
}
