package dev.svc.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.results.MetricsFiles;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** metrics.json files on disk become indexed results: filters, pagination, detail, delete, compare. */
class ResultsIndexingTest {

  @TempDir
  Path temp;

  private Path home;
  private Path results;

  @BeforeEach
  void writeResults() throws IOException {
    home = temp.resolve("home");
    results = temp.resolve("results");
    write(results.resolve("lab-a/run-1/metrics.json"), metrics("llama-8b", "vllm", "quick", "2026-01-10T10:00:00.000Z",
        new JsonObject().put("tokens_per_second", 100.5).put("latency_ms", 20).put("gpu", new JsonObject().put("peak_mb", 1000))));
    write(results.resolve("lab-b/nested/deeper/run-2/metrics.json"), metrics("llama-8b", "llama_cpp", "standard",
        "2026-02-10T10:00:00.000Z", new JsonObject().put("tokens_per_second", 80.0).put("latency_ms", 30)));
    write(results.resolve("run-3/metrics.json"), metrics("qwen-7b", "vllm", "quick", "2026-03-10T10:00:00.000Z",
        new JsonObject().put("tokens_per_second", 200).put("latency_ms", 10.5).put("note", "not a number")));
  }

  private static JsonObject metrics(String model, String engine, String suite, String timestamp, JsonObject values) {
    return new JsonObject().put("model", model).put("engine", engine).put("suite_name", suite).put("timestamp", timestamp)
        .put("svc_version", "1.0.0")
        .put("results", new JsonArray().add(new JsonObject().put("test_name", "throughput").put("passed", true)
            .put("metrics", values)));
  }

  private static void write(Path file, JsonObject content) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, content.encodePrettily());
  }

  private TestServer start() {
    return TestServer.start(home, new TestServer.Options().resultsDir(results));
  }

  private static JsonObject list(TestServer server, String query) {
    HttpResponse<Buffer> response = server.get("/api/v1/results" + query);
    assertThat(response.statusCode()).as(query).isEqualTo(200);
    return response.bodyAsJsonObject();
  }

  private static List<String> models(JsonObject page) {
    List<String> out = new ArrayList<>();
    page.getJsonArray("items").forEach(o -> out.add(((JsonObject) o).getString("model")));
    return out;
  }

  private static Map<String, String> idsByModelAndEngine(TestServer server) {
    Map<String, String> ids = new HashMap<>();
    list(server, "?per_page=200").getJsonArray("items").forEach(o -> {
      JsonObject item = (JsonObject) o;
      ids.put(item.getString("model") + "/" + item.getString("engine"), item.getString("id"));
    });
    return ids;
  }

  @Test
  void filesInNestedDirectoriesAreListedWithIdAndTheirFields() {
    try (TestServer server = start()) {
      JsonObject page = list(server, "");

      assertThat(page.getLong("total")).isEqualTo(3);
      assertThat(page.getJsonArray("items")).hasSize(3);
      for (Object o : page.getJsonArray("items")) {
        JsonObject item = (JsonObject) o;
        assertThat(item.getString("id")).matches("[0-9a-f]{16}");
        assertThat(item.getJsonArray("results")).hasSize(1);
      }
      Map<String, String> ids = idsByModelAndEngine(server);
      assertThat(ids).containsOnlyKeys("llama-8b/vllm", "llama-8b/llama_cpp", "qwen-7b/vllm");
      JsonObject nested = page.getJsonArray("items").stream().map(JsonObject.class::cast)
          .filter(i -> "llama_cpp".equals(i.getString("engine"))).findFirst().orElseThrow();
      assertThat(nested.getString("suite_name")).isEqualTo("standard");
      assertThat(nested.getString("model")).isEqualTo("llama-8b");
    }
  }

  @Test
  void filtersSelectByModelEngineSuiteAndTime() {
    try (TestServer server = start()) {
      assertThat(models(list(server, "?model=llama-8b"))).containsExactlyInAnyOrder("llama-8b", "llama-8b");
      assertThat(list(server, "?model=llama-8b").getLong("total")).isEqualTo(2);
      assertThat(list(server, "?engine=vllm").getLong("total")).isEqualTo(2);
      assertThat(models(list(server, "?engine=vllm"))).containsExactlyInAnyOrder("llama-8b", "qwen-7b");
      assertThat(list(server, "?suite_name=standard").getLong("total")).isEqualTo(1);
      assertThat(list(server, "?model=llama-8b&engine=vllm").getLong("total")).isEqualTo(1);
      assertThat(list(server, "?model=nope").getLong("total")).isZero();

      JsonObject since = list(server, "?since=2026-02-01T00:00:00Z");
      assertThat(since.getLong("total")).isEqualTo(2);
      assertThat(since.getJsonArray("items").stream().map(JsonObject.class::cast).map(i -> i.getString("engine")))
          .containsExactlyInAnyOrder("llama_cpp", "vllm");
      JsonObject until = list(server, "?until=2026-02-01T00:00:00Z");
      assertThat(until.getLong("total")).isEqualTo(1);
      assertThat(models(until)).containsExactly("llama-8b");
      JsonObject window = list(server, "?since=2026-02-01T00:00:00Z&until=2026-03-01T00:00:00Z");
      assertThat(window.getLong("total")).isEqualTo(1);
      assertThat(window.getJsonArray("items").getJsonObject(0).getString("engine")).isEqualTo("llama_cpp");
    }
  }

  @Test
  void invalidSinceIsRefused() {
    try (TestServer server = start()) {
      HttpResponse<Buffer> response = server.get("/api/v1/results?since=yesterday");

      assertThat(response.statusCode()).isEqualTo(400);
      assertThat(response.bodyAsJsonObject().getString("error")).contains("since");
    }
  }

  @Test
  void paginationEnvelopeWithOnePerPage() {
    try (TestServer server = start()) {
      List<String> seen = new ArrayList<>();
      for (int page = 1; page <= 3; page++) {
        JsonObject envelope = list(server, "?per_page=1&page=" + page);
        assertThat(envelope.getInteger("page")).isEqualTo(page);
        assertThat(envelope.getInteger("per_page")).isEqualTo(1);
        assertThat(envelope.getInteger("pages")).isEqualTo(3);
        assertThat(envelope.getLong("total")).isEqualTo(3);
        assertThat(envelope.getJsonArray("items")).hasSize(1);
        seen.add(envelope.getJsonArray("items").getJsonObject(0).getString("id"));
      }
      assertThat(seen).doesNotHaveDuplicates();

      JsonObject beyond = list(server, "?per_page=1&page=4");
      assertThat(beyond.getJsonArray("items")).isEmpty();
      assertThat(beyond.getLong("total")).isEqualTo(3);
      assertThat(server.get("/api/v1/results?per_page=0").statusCode()).isEqualTo(400);
      assertThat(server.get("/api/v1/results?per_page=201").statusCode()).isEqualTo(400);
    }
  }

  @Test
  void restartDoesNotIndexTheSameFileTwiceAndIndexesNewOnes() throws IOException {
    List<String> before;
    try (TestServer server = start()) {
      assertThat(list(server, "").getLong("total")).isEqualTo(3);
      before = new ArrayList<>(idsByModelAndEngine(server).values());
    }
    write(results.resolve("run-4/metrics.json"), metrics("phi-3", "tgi", "quick", "2026-04-10T10:00:00.000Z",
        new JsonObject().put("tokens_per_second", 50)));
    try (TestServer restarted = start()) {
      assertThat(list(restarted, "").getLong("total")).isEqualTo(4);
      Map<String, String> ids = idsByModelAndEngine(restarted);
      assertThat(ids).containsKey("phi-3/tgi");
      ids.remove("phi-3/tgi");
      assertThat(ids.values()).containsExactlyInAnyOrderElementsOf(before);
    }
  }

  @Test
  void detailReturnsTheResultAndDeleteRemovesIt() {
    String id;
    try (TestServer server = start()) {
      id = idsByModelAndEngine(server).get("qwen-7b/vllm");

      HttpResponse<Buffer> detail = server.get("/api/v1/results/" + id);
      assertThat(detail.statusCode()).isEqualTo(200);
      assertThat(detail.bodyAsJsonObject().getString("id")).isEqualTo(id);
      assertThat(detail.bodyAsJsonObject().getString("model")).isEqualTo("qwen-7b");
      assertThat(detail.bodyAsJsonObject().getString("suite_name")).isEqualTo("quick");

      HttpResponse<Buffer> deleted = TestServer.send(server.client(), HttpMethod.DELETE, "/api/v1/results/" + id, null, null);
      assertThat(deleted.statusCode()).isEqualTo(200);
      assertThat(deleted.bodyAsJsonObject().getBoolean("deleted")).isTrue();

      HttpResponse<Buffer> gone = server.get("/api/v1/results/" + id);
      assertThat(gone.statusCode()).isEqualTo(404);
      assertThat(gone.bodyAsJsonObject().getString("error")).isNotBlank();
      assertThat(list(server, "").getLong("total")).isEqualTo(2);
      assertThat(TestServer.send(server.client(), HttpMethod.DELETE, "/api/v1/results/" + id, null, null).statusCode())
          .isEqualTo(404);
    }
    // The file is still on disk, but a deleted result does not come back with the next scan.
    try (TestServer restarted = start()) {
      assertThat(restarted.get("/api/v1/results/" + id).statusCode()).isEqualTo(404);
      assertThat(list(restarted, "").getLong("total")).isEqualTo(2);
      assertThat(idsByModelAndEngine(restarted)).doesNotContainKey("qwen-7b/vllm");
    }
  }

  @Test
  void compareReturnsBothResultsAndTheirCommonNumericMetrics() {
    try (TestServer server = start()) {
      Map<String, String> ids = idsByModelAndEngine(server);
      String first = ids.get("llama-8b/vllm");
      String second = ids.get("qwen-7b/vllm");

      HttpResponse<Buffer> response = server.post("/api/v1/results/compare",
          new JsonObject().put("ids", new JsonArray().add(first).add(second)));

      assertThat(response.statusCode()).isEqualTo(200);
      JsonObject body = response.bodyAsJsonObject();
      JsonArray items = body.getJsonArray("items");
      assertThat(items).hasSize(2);
      assertThat(items.getJsonObject(0).getString("id")).isEqualTo(first);
      assertThat(items.getJsonObject(1).getString("id")).isEqualTo(second);
      JsonObject table = body.getJsonObject("metrics");
      assertThat(table.fieldNames()).containsExactlyInAnyOrder("throughput.tokens_per_second", "throughput.latency_ms");
      assertThat(table.getJsonArray("throughput.tokens_per_second").getList()).containsExactly(100.5, 200.0);
      assertThat(table.getJsonArray("throughput.latency_ms").getList()).containsExactly(20.0, 10.5);
    }
  }

  @Test
  void compareFlattensASweepsStepsUnderNumberedNamesAsTheCsvDoes() throws IOException {
    write(results.resolve("sweep-a/metrics.json"),
        MetricsFiles.sweep("swept-a", "2026-04-01T10:00:00.000Z", MetricsFiles.threeSweepSteps(), null));
    write(results.resolve("sweep-b/metrics.json"), MetricsFiles.sweep("swept-b", "2026-04-02T10:00:00.000Z",
        new JsonArray().add(MetricsFiles.sweepStep("sequential", 2.5, 300.0, 30.0, 40.0, 7.0, 400.0, 20, 0))
            .add(MetricsFiles.sweepStep("concurrency:8", 9.0, 1100.0, 80.0, 150.0, 9.0, 900.0, 20, 0))
            .add(MetricsFiles.openLoop(MetricsFiles.sweepStep("poisson:5.1", 5.0, 600.0, 35.0, 50.0, 7.5, 450.0, 20, 0),
                5.05, 3.0, null)), null));
    write(results.resolve("sweep-c/metrics.json"), MetricsFiles.sweep("swept-c", "2026-04-03T10:00:00.000Z",
        new JsonArray().add(MetricsFiles.sweepStep("sequential", 1.9, 240.0, 38.0, 44.0, 7.6, 520.0, 20, 0))
            .add(MetricsFiles.sweepStep("concurrency:16", 1.95, 249.6, 410.0, 802.5, 7.7, 8120.0, 20, 0)),
        "no open-loop steps"));
    try (TestServer server = start()) {
      Map<String, String> ids = idsByModelAndEngine(server);
      String a = ids.get("swept-a/llama_cpp");
      String b = ids.get("swept-b/llama_cpp");
      String c = ids.get("swept-c/llama_cpp");

      JsonObject ab = compareMetrics(server, a, b);
      assertThat(ab.getJsonArray("throughput.sweep.1.request_throughput").getList()).containsExactly(1.92, 2.5);
      assertThat(ab.getJsonArray("throughput.sweep.2.output_token_throughput").getList()).containsExactly(1459.2, 1100.0);
      assertThat(ab.getJsonArray("throughput.sweep.2.ttft_ms.p99").getList()).containsExactly(180.4, 150.0);
      assertThat(ab.getJsonArray("throughput.sweep.3.achieved_rate").getList()).containsExactly(3.17, 5.05);
      assertThat(ab.getJsonArray("throughput.sweep.3.queueing_delay_ms.p99").getList()).containsExactly(14.2, 3.0);
      assertThat(ab.getJsonArray("throughput.ttft_ms.p99").getList()).as("the headline metrics stay as they were")
          .containsExactly(180.4, 150.0);
      assertThat(ab.fieldNames().stream().filter(k -> k.startsWith("throughput.sweep")))
          .as("only numbers, numbered from 1, statistics as the last part")
          .allSatisfy(k -> assertThat(k).matches("throughput\\.sweep\\.[123]\\.[a-z0-9_]+(\\.(mean|p50|p90|p95|p99|min|max|std))?"))
          .noneMatch(k -> k.endsWith(".load") || k.endsWith(".valid") || k.endsWith(".invalid_reason"));

      JsonObject ac = compareMetrics(server, a, c);
      assertThat(ac.getJsonArray("throughput.sweep.2.ttft_ms.p50").getList()).containsExactly(95.1, 410.0);
      assertThat(ac.fieldNames()).as("the steps both sweeps ran, and no note")
          .noneMatch(k -> k.startsWith("throughput.sweep.3.") || k.contains("sweep_note"));

      JsonObject plain = compareMetrics(server, a, ids.get("llama-8b/vllm"));
      assertThat(plain.fieldNames()).noneMatch(k -> k.contains("sweep"));
    }
  }

  private static JsonObject compareMetrics(TestServer server, String first, String second) {
    HttpResponse<Buffer> response = server.post("/api/v1/results/compare",
        new JsonObject().put("ids", new JsonArray().add(first).add(second)));
    assertThat(response.statusCode()).isEqualTo(200);
    return response.bodyAsJsonObject().getJsonObject("metrics");
  }

  @Test
  void compareWithAnUnknownIdIsNotFound() {
    try (TestServer server = start()) {
      String known = idsByModelAndEngine(server).get("llama-8b/vllm");

      HttpResponse<Buffer> response = server.post("/api/v1/results/compare",
          new JsonObject().put("ids", new JsonArray().add(known).add("0123456789abcdef")));

      assertThat(response.statusCode()).isEqualTo(404);
      assertThat(response.bodyAsJsonObject().getString("error")).contains("0123456789abcdef");
    }
  }
}
