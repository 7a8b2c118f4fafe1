package dev.svc.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The global Settings page over REST: database beats environment beats default; clearing reverts. */
class GlobalSettingsTest {

  @TempDir
  Path temp;

  private static JsonObject setting(TestServer server, String key) {
    HttpResponse<Buffer> response = server.get("/api/v1/settings");
    assertThat(response.statusCode()).isEqualTo(200);
    return response.bodyAsJsonObject().getJsonObject(key);
  }

  private static HttpResponse<Buffer> put(TestServer server, JsonObject body) {
    return server.put("/api/v1/settings", null, body);
  }

  @Test
  void modelDirDefaultsToModelsUnderTheHome() {
    Path home = temp.resolve("home");
    try (TestServer server = TestServer.start(home)) {
      JsonObject modelDir = setting(server, "model_dir");
      assertThat(modelDir.getString("value")).isEqualTo(home.resolve("models").toString());
      assertThat(modelDir.getString("source")).isEqualTo("default");
    }
  }

  @Test
  void modelDirComesFromTheEnvironmentWhenSvcModelDirIsSet() {
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().env("SVC_MODEL_DIR", "/env/models"))) {
      JsonObject modelDir = setting(server, "model_dir");
      assertThat(modelDir.getString("value")).isEqualTo("/env/models");
      assertThat(modelDir.getString("source")).isEqualTo("environment");
    }
  }

  @Test
  void savedModelDirWinsOverTheEnvironmentAndSurvivesARestart() {
    Path home = temp.resolve("home");
    TestServer.Options options = new TestServer.Options().env("SVC_MODEL_DIR", "/env/models");
    try (TestServer server = TestServer.start(home, options)) {
      HttpResponse<Buffer> saved = put(server, new JsonObject().put("model_dir", "/db/models"));
      assertThat(saved.statusCode()).isEqualTo(200);
      assertThat(saved.bodyAsJsonObject().getJsonObject("model_dir").getString("value")).isEqualTo("/db/models");
      assertThat(saved.bodyAsJsonObject().getJsonObject("model_dir").getString("source")).isEqualTo("database");
      assertThat(setting(server, "model_dir").getString("value")).isEqualTo("/db/models");
    }
    try (TestServer restarted = TestServer.start(home, options)) {
      JsonObject modelDir = setting(restarted, "model_dir");
      assertThat(modelDir.getString("value")).isEqualTo("/db/models");
      assertThat(modelDir.getString("source")).isEqualTo("database");
    }
  }

  @Test
  void clearingModelDirWithNullRevertsToTheEnvironment() {
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().env("SVC_MODEL_DIR", "/env/models"))) {
      assertThat(put(server, new JsonObject().put("model_dir", "/db/models")).statusCode()).isEqualTo(200);

      HttpResponse<Buffer> cleared = put(server, new JsonObject().putNull("model_dir"));

      assertThat(cleared.statusCode()).isEqualTo(200);
      JsonObject modelDir = setting(server, "model_dir");
      assertThat(modelDir.getString("value")).isEqualTo("/env/models");
      assertThat(modelDir.getString("source")).isEqualTo("environment");
    }
  }

  @Test
  void clearingModelDirWithEmptyTextRevertsToTheDefaultWithoutEnvironment() {
    Path home = temp.resolve("home");
    try (TestServer server = TestServer.start(home)) {
      assertThat(put(server, new JsonObject().put("model_dir", "/db/models")).statusCode()).isEqualTo(200);
      assertThat(setting(server, "model_dir").getString("source")).isEqualTo("database");

      HttpResponse<Buffer> cleared = put(server, new JsonObject().put("model_dir", ""));

      assertThat(cleared.statusCode()).isEqualTo(200);
      JsonObject modelDir = setting(server, "model_dir");
      assertThat(modelDir.getString("value")).isEqualTo(home.resolve("models").toString());
      assertThat(modelDir.getString("source")).isEqualTo("default");
    }
  }

  @Test
  void catalogUrlAcceptsHttpAndHttpsUrls() {
    try (TestServer server = TestServer.start(temp.resolve("home"))) {
      HttpResponse<Buffer> http = put(server, new JsonObject().put("catalog_url", "http://catalog.lab:8080"));
      assertThat(http.statusCode()).isEqualTo(200);
      assertThat(setting(server, "catalog_url").getString("value")).isEqualTo("http://catalog.lab:8080");
      assertThat(setting(server, "catalog_url").getString("source")).isEqualTo("database");

      HttpResponse<Buffer> https = put(server, new JsonObject().put("catalog_url", "https://catalog.example.com/manifest.json"));
      assertThat(https.statusCode()).isEqualTo(200);
      assertThat(setting(server, "catalog_url").getString("value")).isEqualTo("https://catalog.example.com/manifest.json");
    }
  }

  @Test
  void catalogUrlRefusesOtherSchemesAndNonUrls() {
    try (TestServer server = TestServer.start(temp.resolve("home"))) {
      for (String bad : new String[] {"ftp://x", "not a url"}) {
        HttpResponse<Buffer> refused = put(server, new JsonObject().put("catalog_url", bad));
        assertThat(refused.statusCode()).as(bad).isEqualTo(400);
        assertThat(refused.bodyAsJsonObject().getString("error")).as(bad).contains("catalog_url");
      }
      assertThat(setting(server, "catalog_url").getString("value")).isNull();
    }
  }

  @Test
  void unknownSettingIsRefusedByNameAndNothingIsSaved() {
    Path home = temp.resolve("home");
    try (TestServer server = TestServer.start(home)) {
      HttpResponse<Buffer> refused = put(server, new JsonObject().put("model_dir", "/db/models").put("colour", "blue"));

      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(refused.bodyAsJsonObject().getString("error")).contains("colour");
      assertThat(setting(server, "model_dir").getString("source")).isEqualTo("default");
    }
  }

  @Test
  void newResultsDirIsIndexedWithoutARestart() throws IOException {
    Path newResults = temp.resolve("elsewhere");
    Path run = Files.createDirectories(newResults.resolve("2026-run/quick"));
    Files.writeString(run.resolve("metrics.json"), new JsonObject()
        .put("model", "moved-model").put("engine", "vllm").put("suite_name", "quick")
        .put("timestamp", "2026-05-01T12:00:00.000Z")
        .put("results", new JsonArray().add(new JsonObject().put("test_name", "throughput").put("passed", true)
            .put("metrics", new JsonObject().put("tokens_per_second", 42.0))))
        .encode());
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().resultsDir(temp.resolve("initial-results")))) {
      assertThat(setting(server, "results_dir").getString("source")).isEqualTo("flag");
      assertThat(server.get("/api/v1/results").bodyAsJsonObject().getLong("total")).isZero();

      HttpResponse<Buffer> saved = put(server, new JsonObject().put("results_dir", newResults.toString()));

      assertThat(saved.statusCode()).isEqualTo(200);
      assertThat(saved.bodyAsJsonObject().getJsonObject("results_dir").getString("value")).isEqualTo(newResults.toString());
      assertThat(saved.bodyAsJsonObject().getJsonObject("results_dir").getString("source")).isEqualTo("database");
      // The new directory is indexed before the reply: its result is listed at once.
      JsonObject listed = server.get("/api/v1/results?model=moved-model").bodyAsJsonObject();
      assertThat(listed.getLong("total")).isEqualTo(1);
      JsonObject item = listed.getJsonArray("items").getJsonObject(0);
      assertThat(item.getString("model")).isEqualTo("moved-model");
      assertThat(item.getString("engine")).isEqualTo("vllm");
      assertThat(item.getString("id")).matches("[0-9a-f]{16}");
    }
  }
}
