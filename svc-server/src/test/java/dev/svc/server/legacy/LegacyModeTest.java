package dev.svc.server.legacy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `svc web --legacy`: results found on disk are listed and no database file is created. */
class LegacyModeTest {

  @TempDir
  Path home;

  @TempDir
  Path results;

  @Test
  void legacyModeListsResultsFromDiskAndCreatesNoDatabase() throws Exception {
    Path run = results.resolve("llama/vllm/2026-11-20T10-00-00");
    Files.createDirectories(run);
    Files.writeString(run.resolve("metrics.json"), new JsonObject().put("kitt_version", "1.6.2").put("engine", "vllm")
        .put("model", "llama").put("suite_name", "quick").put("timestamp", "2026-11-20T10:00:00.000Z")
        .put("passed", true).encode());
    try (TestServer server = TestServer.start(home, new TestServer.Options().legacy().resultsDir(results))) {
      assertThat(server.get("/api/health").bodyAsJsonObject().getString("status")).isEqualTo("ok");
      JsonArray listed = server.get("/api/results").bodyAsJsonArray();
      assertThat(listed).hasSize(1);
      assertThat(listed.getJsonObject(0).getString("engine")).isEqualTo("vllm");
      assertThat(server.get("/api/results/0").bodyAsJsonObject().getString("model")).isEqualTo("llama");
      assertThat(server.get("/").bodyAsString()).contains("llama");
      assertThat(server.get("/api/v1/agents").statusCode()).isEqualTo(404);
    }
    assertThat(home.resolve("svc.db")).doesNotExist();
    try (var files = Files.walk(home)) {
      assertThat(files.filter(p -> p.getFileName().toString().startsWith("svc.db"))).isEmpty();
    }
  }
}
