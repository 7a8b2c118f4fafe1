package dev.svc.server.legacy;

import dev.svc.server.results.MetricsFiles;
import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LegacyRoutesTest {

  @TempDir
  Path temp;

  private Vertx vertx;
  private WebClient client;
  private Path root;

  @BeforeEach
  void start() {
    root = temp.resolve("results");
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    LegacyRoutes.mount(vertx, router, List.of(root, temp.resolve("no-such-dir")));
    HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
        .await();
    client = WebClient.create(vertx, new WebClientOptions()
        .setDefaultHost("127.0.0.1").setDefaultPort(server.actualPort()));
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  @Test
  void legacyHealthReportsLegacyMode() {
    HttpResponse<Buffer> response = get("/api/health");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.bodyAsJsonObject())
        .isEqualTo(new JsonObject().put("status", "ok").put("mode", "legacy"));
  }

  @Test
  void legacyApiListsResultsNewestFirst() throws IOException {
    write("old-run", result("old-model", "2026-11-20T10:00:00Z", 50.0));
    write("new-run", result("new-model", "2026-11-22T10:00:00Z", 103.2));

    HttpResponse<Buffer> response = get("/api/results");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("content-type")).startsWith("application/json");
    JsonArray list = response.bodyAsJsonArray();
    assertThat(list).hasSize(2);
    JsonObject first = list.getJsonObject(0);
    assertThat(first.getString("model")).isEqualTo("new-model");
    assertThat(first.getInteger("index")).isZero();
    assertThat(first.getString("path")).isEqualTo(root.resolve("new-run").toRealPath().toString());
    assertThat(first.getJsonArray("results").getJsonObject(0).getJsonObject("metrics")
        .getDouble("avg_tps")).isEqualTo(103.2);
    assertThat(list.getJsonObject(1).getString("model")).isEqualTo("old-model");
    assertThat(list.getJsonObject(1).getInteger("index")).isEqualTo(1);

    JsonObject second = get("/api/results/1").bodyAsJsonObject();
    assertThat(second.getString("model")).isEqualTo("old-model");
    assertThat(second.getInteger("index")).isEqualTo(1);
  }

  @Test
  void legacyApiSeesFilesWrittenAfterStart() throws IOException {
    assertThat(get("/api/results").bodyAsJsonArray()).isEmpty();

    write("later", result("later-model", "2026-11-22T10:00:00Z", 1.0));

    assertThat(get("/api/results").bodyAsJsonArray()).hasSize(1);
  }

  @Test
  void legacyApiReturnsJson404ForUnknownIndex() throws IOException {
    write("only", result("m", "2026-11-22T10:00:00Z", 1.0));

    for (String index : List.of("1", "-1", "abc", "99999999999")) {
      HttpResponse<Buffer> response = get("/api/results/" + index);

      assertThat(response.statusCode()).isEqualTo(404);
      assertThat(response.getHeader("content-type")).startsWith("application/json");
      assertThat(response.bodyAsJsonObject())
          .isEqualTo(new JsonObject().put("error", "No result with index " + index));
    }
  }

  @Test
  void legacyApiAnswersUnknownPathsWithJson404() {
    HttpResponse<Buffer> response = get("/api/campaigns");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.getHeader("content-type")).startsWith("application/json");
    assertThat(response.bodyAsJsonObject()).isEqualTo(new JsonObject().put("error", "Not found"));
  }

  @Test
  void legacySummaryPageEscapesHtml() throws IOException {
    write("evil", result("<script>alert('x')</script>", "2026-11-22T10:00:00Z", 103.2)
        .put("engine", "vllm & \"friends\""));

    HttpResponse<Buffer> response = get("/");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("content-type")).startsWith("text/html");
    String html = response.bodyAsString();
    assertThat(html).doesNotContain("<script").doesNotContain("alert('x')");
    assertThat(html).contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
    assertThat(html).contains("vllm &amp; &quot;friends&quot;");
    assertThat(html).contains("2026-11-22T10:00:00.000Z", "quick", "passed", "avg_tps 103.2");
    assertThat(html).contains("Legacy read-only view");
    assertThat(html).doesNotContain("<link", "src=\"http", "@import");
  }

  private HttpResponse<Buffer> get(String path) {
    return client.get(path).send().await();
  }

  private void write(String run, JsonObject data) throws IOException {
    MetricsFiles.write(root.resolve(run).resolve("metrics.json"), data);
  }

  private static JsonObject result(String model, String timestamp, double avgTps) {
    return MetricsFiles.current(model, timestamp, avgTps);
  }

}
