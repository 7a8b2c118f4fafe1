package dev.svc.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET /api/v1/models: the manifest.json of the model directory and of the catalog service. */
class ModelsTest {

  @TempDir
  Path temp;

  private Path modelDir;

  @BeforeEach
  void createModelDir() throws IOException {
    modelDir = Files.createDirectories(temp.resolve("models"));
  }

  private void writeManifest() throws IOException {
    Files.createDirectories(modelDir.resolve("mistral-7b"));
    Files.write(modelDir.resolve("mistral-7b/model.safetensors"), new byte[] {1, 2, 3});
    Files.createDirectories(modelDir.resolve("gguf"));
    Files.write(modelDir.resolve("gguf/qwen2-7b-q4.gguf"), new byte[] {4, 5});
    JsonArray models = new JsonArray()
        .add(new JsonObject().put("model_id", "llama-3-8b").put("path", "/remote/llama-3-8b")
            .put("formats", new JsonArray().add("safetensors").add("pytorch")).put("size_bytes", 16_000_000_000L))
        .add(new JsonObject().put("model_id", "mistral-7b").put("path", "mistral-7b").put("size_bytes", 3))
        .add(new JsonObject().put("model_id", "qwen2-7b-q4").put("path", "gguf/qwen2-7b-q4.gguf"));
    Files.writeString(modelDir.resolve("manifest.json"), new JsonObject().put("models", models).encodePrettily());
  }

  private static JsonObject models(TestServer server, String query) {
    HttpResponse<Buffer> response = server.get("/api/v1/models" + query);
    assertThat(response.statusCode()).isEqualTo(200);
    return response.bodyAsJsonObject();
  }

  private static Map<String, JsonObject> byId(JsonObject listing) {
    return listing.getJsonArray("items").stream().map(JsonObject.class::cast)
        .collect(Collectors.toMap(m -> m.getString("model_id"), Function.identity()));
  }

  @Test
  void manifestInTheEnvironmentsModelDirIsListed() throws IOException {
    writeManifest();
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().env("SVC_MODEL_DIR", modelDir.toString()))) {
      JsonObject listing = models(server, "");

      assertThat(listing.getLong("total")).isEqualTo(3);
      Map<String, JsonObject> models = byId(listing);
      assertThat(models).containsOnlyKeys("llama-3-8b", "mistral-7b", "qwen2-7b-q4");

      JsonObject explicit = models.get("llama-3-8b");
      assertThat(explicit.getString("path")).isEqualTo("/remote/llama-3-8b");
      assertThat(explicit.getJsonArray("formats").getList()).containsExactly("safetensors", "pytorch");
      assertThat(explicit.getLong("size_bytes")).isEqualTo(16_000_000_000L);
      assertThat(explicit.getString("source")).isEqualTo("local");

      JsonObject directory = models.get("mistral-7b");
      assertThat(directory.getString("path")).isEqualTo(modelDir.resolve("mistral-7b").toString());
      assertThat(directory.getJsonArray("formats").getList()).containsExactly("safetensors");
      assertThat(directory.getLong("size_bytes")).isEqualTo(3L);
      assertThat(directory.getString("source")).isEqualTo("local");

      JsonObject gguf = models.get("qwen2-7b-q4");
      assertThat(gguf.getString("path")).isEqualTo(modelDir.resolve("gguf/qwen2-7b-q4.gguf").toString());
      assertThat(gguf.getJsonArray("formats").getList()).containsExactly("gguf");
      assertThat(gguf.containsKey("size_bytes")).isTrue();
      assertThat(gguf.getString("source")).isEqualTo("local");
    }
  }

  @Test
  void modelDirSavedInSettingsIsUsedImmediately() throws IOException {
    writeManifest();
    try (TestServer server = TestServer.start(temp.resolve("home"))) {
      assertThat(models(server, "").getJsonArray("items")).isEmpty();

      HttpResponse<Buffer> saved = server.put("/api/v1/settings", null, new JsonObject().put("model_dir", modelDir.toString()));
      assertThat(saved.statusCode()).isEqualTo(200);

      assertThat(byId(models(server, ""))).containsOnlyKeys("llama-3-8b", "mistral-7b", "qwen2-7b-q4");
    }
  }

  @Test
  void queryFiltersBySubstringOfIdOrPath() throws IOException {
    writeManifest();
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().env("SVC_MODEL_DIR", modelDir.toString()))) {
      JsonObject mistral = models(server, "?q=MISTRAL");
      assertThat(byId(mistral)).containsOnlyKeys("mistral-7b");
      assertThat(mistral.getLong("total")).isEqualTo(1);

      assertThat(byId(models(server, "?q=remote/llama"))).containsOnlyKeys("llama-3-8b");
      assertThat(byId(models(server, "?q=7b"))).containsOnlyKeys("mistral-7b", "qwen2-7b-q4");
      assertThat(models(server, "?q=no-such-model").getJsonArray("items")).isEmpty();
    }
  }

  @Test
  void missingManifestGivesAnEmptyListWithAProblem() {
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().env("SVC_MODEL_DIR", modelDir.toString()))) {
      JsonObject listing = models(server, "");

      assertThat(listing.getJsonArray("items")).isEmpty();
      assertThat(listing.getLong("total")).isZero();
      assertThat(listing.getJsonArray("problems")).hasSize(1);
      assertThat(listing.getJsonArray("problems").getString(0)).contains("manifest.json");
    }
  }

  @Test
  void invalidManifestGivesAnEmptyListWithAProblemNamingIt() throws IOException {
    Files.writeString(modelDir.resolve("manifest.json"), "{\"models\": [ {\"model_id\": ");
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().env("SVC_MODEL_DIR", modelDir.toString()))) {
      JsonObject listing = models(server, "");

      assertThat(listing.getJsonArray("items")).isEmpty();
      assertThat(listing.getJsonArray("problems")).hasSize(1);
      assertThat(listing.getJsonArray("problems").getString(0))
          .contains(modelDir.resolve("manifest.json").toString()).containsIgnoringCase("JSON");
    }
  }

  @Test
  void catalogServiceManifestIsListedWithSourceCatalog() throws IOException {
    writeManifest();
    JsonArray remote = new JsonArray()
        .add(new JsonObject().put("model_id", "remote-llama").put("path", "meta-llama/Llama-3-70B").put("size_bytes", 123))
        .add(new JsonObject().put("model_id", "remote-gguf").put("path", "/srv/share/phi-3.gguf"));
    Vertx catalogVertx = Vertx.vertx();
    try {
      HttpServer catalog = catalogVertx.createHttpServer().requestHandler(req -> {
        if ("/manifest.json".equals(req.path())) {
          req.response().putHeader("Content-Type", "application/json").end(remote.encode());
        } else {
          req.response().setStatusCode(404).end();
        }
      }).listen(0, "127.0.0.1").await();
      try (TestServer server = TestServer.start(temp.resolve("home"),
          new TestServer.Options().env("SVC_MODEL_DIR", modelDir.toString()))) {
        HttpResponse<Buffer> saved = server.put("/api/v1/settings", null,
            new JsonObject().put("catalog_url", "http://127.0.0.1:" + catalog.actualPort()));
        assertThat(saved.statusCode()).isEqualTo(200);

        JsonObject listing = models(server, "");

        Map<String, JsonObject> models = byId(listing);
        assertThat(models).containsOnlyKeys("llama-3-8b", "mistral-7b", "qwen2-7b-q4", "remote-llama", "remote-gguf");
        assertThat(listing.getJsonArray("problems")).isEmpty();
        assertThat(models.get("remote-llama").getString("source")).isEqualTo("catalog");
        assertThat(models.get("remote-llama").getString("path")).isEqualTo("meta-llama/Llama-3-70B");
        assertThat(models.get("remote-llama").getLong("size_bytes")).isEqualTo(123L);
        assertThat(models.get("remote-gguf").getString("source")).isEqualTo("catalog");
        assertThat(models.get("remote-gguf").getJsonArray("formats").getList()).containsExactly("gguf");
        assertThat(models.get("mistral-7b").getString("source")).isEqualTo("local");
      }
    } finally {
      catalogVertx.close().await();
    }
  }
  @Test
  void unreachableCatalogServiceIsAProblemNotAFailure() throws IOException {
    writeManifest();
    Vertx scratch = Vertx.vertx();
    int closedPort;
    try {
      HttpServer probe = scratch.createHttpServer().requestHandler(req -> req.response().end()).listen(0, "127.0.0.1").await();
      closedPort = probe.actualPort();
      probe.close().await();
    } finally {
      scratch.close().await();
    }
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().env("SVC_MODEL_DIR", modelDir.toString()).env("CATALOG_URL", "http://127.0.0.1:" + closedPort))) {
      JsonObject listing = models(server, "");

      assertThat(byId(listing)).containsOnlyKeys("llama-3-8b", "mistral-7b", "qwen2-7b-q4");
      assertThat(listing.getJsonArray("problems")).hasSize(1);
      assertThat(listing.getJsonArray("problems").getString(0)).contains("127.0.0.1:" + closedPort);
    }
  }
}
