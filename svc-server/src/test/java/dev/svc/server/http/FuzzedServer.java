package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The real in-process server that a fuzz test class feeds (SQLite, plain HTTP, one client reused for
 * every input, so an input costs one request): an agent, a queued quick test and a draft campaign to
 * give the {id} routes something to find, and the JSON-error contract every answer is held to.
 */
final class FuzzedServer implements AutoCloseable {

  final TestServer server;
  final BadInputHttp http;
  final String agentId;
  final String testId;
  final String campaignId;
  private final Path dir;

  private FuzzedServer(Path dir) {
    this.dir = dir;
    server = TestServer.start(dir.resolve("home"), new TestServer.Options().insecure().resultsDir(dir.resolve("results")));
    http = BadInputHttp.of(server, null);
    agentId = created(post("/api/v1/agents/register", new JsonObject().put("name", "fuzz-agent")
        .put("hostname", "fuzz-host").put("cpu_arch", "x86_64")), 201).getString("agent_id");
    testId = created(post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId)
        .put("model_path", "/models/fuzz").put("engine_name", "vllm")), 202).getString("id");
    campaignId = created(post("/api/v1/campaigns", new JsonObject().put("name", "fuzz").put("agent_id", agentId)
        .put("config", new JsonObject()
            .put("models", new JsonArray().add(new JsonObject().put("name", "m").put("path", "/models/fuzz")))
            .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")))
            .put("benchmarks", new JsonArray().add("throughput")))), 201).getString("id");
  }

  static FuzzedServer start() throws IOException {
    return new FuzzedServer(Files.createTempDirectory("svc-api-fuzz-"));
  }

  /** Never a server fault; a refusal is a JSON {"error": sentence}; a JSON answer is valid JSON. */
  static void assertContract(BadInputHttp.Reply reply, String what) {
    assertThat(reply.status()).as("status for %s: %s", what, reply.body()).isBetween(200, 499);
    if (reply.status() >= 400) {
      assertThat(reply.contentType()).as("refusal of %s", what).startsWith("application/json");
      JsonObject error = new JsonObject(reply.body());
      assertThat(error.getValue("error")).as("refusal of %s: %s", what, reply.body()).isInstanceOf(String.class);
      assertThat(error.getString("error")).as("refusal of %s", what).isNotBlank();
    } else if (reply.contentType() != null && reply.contentType().startsWith("application/json")) {
      assertThat(io.vertx.core.buffer.Buffer.buffer(reply.body()).toJson()).as("answer to %s", what).isNotNull();
    }
  }

  /** The server still answers after everything it was fed; then it stops and its folder goes. */
  @Override
  public void close() throws IOException {
    try {
      assertThat(http.send(HttpMethod.GET, "/api/v1/health", null, null).status()).isEqualTo(200);
      assertThat(http.send(HttpMethod.GET, "/api/v1/results", null, null).status()).isEqualTo(200);
    } finally {
      http.close();
      server.close();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private BadInputHttp.Reply post(String path, JsonObject body) {
    return http.send(HttpMethod.POST, path, body.encode(), null);
  }

  private static JsonObject created(BadInputHttp.Reply reply, int status) {
    assertThat(reply.status()).as("fixture: %s", reply.body()).isEqualTo(status);
    return new JsonObject(reply.body());
  }
}
