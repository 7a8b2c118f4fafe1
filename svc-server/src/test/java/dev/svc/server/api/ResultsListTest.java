package dev.svc.server.api;

import dev.svc.core.events.EventAddresses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import dev.svc.server.housekeeping.HousekeepingVerticle;
import dev.svc.server.results.MetricsFiles;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lists of results carry summaries, whatever the size of the documents: the API's list and compare, the
 * dashboard's list and home page; the whole document comes from the result itself and the exports.
 */
class ResultsListTest {

  /** GPU memory samples per result: about 1.3 MB of metrics.json each. */
  private static final int SAMPLES = 60_000;
  private static final int RESULTS = 4;

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  /** A metrics.json of the current layout with a long GPU memory trace (what makes real documents large). */
  private static JsonObject large(String model, String timestamp) {
    JsonArray samples = new JsonArray();
    for (int i = 0; i < SAMPLES; i++) {
      samples.add(new JsonArray().add(i * 100).add(20_000 + i % 500));
    }
    JsonObject metrics = new JsonObject().put("output_token_throughput", 1459.2).put("request_throughput", 5.7)
        .put("ttft_ms", MetricsFiles.distribution(41.0, 95.0)).put("tpot_ms", MetricsFiles.distribution(9.1, 13.0))
        .put("e2e_ms", MetricsFiles.distribution(2400.5, 3100.0)).put("icg_ms", MetricsFiles.distribution(9.0, 30.0))
        .put("total_iterations", 100)
        .put("gpu_memory", new JsonObject().put("peak_memory_mb", 20499).put("avg_memory_mb", 20250.0)
            .put("vram_utilization_pct", 25.0).put("samples", samples));
    return new JsonObject().put("svc_version", "1.8.0").put("suite_name", "performance").put("timestamp", timestamp)
        .put("engine", "vllm").put("model", model).put("passed", true).put("total_benchmarks", 2)
        .put("valid", true)
        .put("results", new JsonArray()
            .add(new JsonObject().put("test_name", "throughput").put("passed", true).put("metrics", metrics))
            .add(new JsonObject().put("test_name", "mmlu").put("passed", false)
                .put("metrics", new JsonObject().put("accuracy", 0.61).put("correct", 61).put("total", 100))))
        .put("system_info", new JsonObject().put("gpu", new JsonObject().put("model", "NVIDIA H100").put("count", 1)));
  }

  private void writeLarge() throws IOException {
    for (int i = 0; i < RESULTS; i++) {
      MetricsFiles.write(servers.results().resolve("run-" + i).resolve("metrics.json"),
          large("model-" + i, "2026-11-2" + i + "T10:00:00.000Z"));
    }
  }

  @Test
  void theListCarriesSummariesAndTheResultItsWholeDocument() throws IOException {
    writeLarge();
    TestServer server = servers.start();
    long documents = RESULTS * (long) large("model-0", "2026-11-20T10:00:00.000Z").encode().length();

    HttpResponse<Buffer> list = server.get("/api/v1/results?per_page=200");
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat((long) list.body().length()).as("bytes of the list of %d documents of %d bytes", RESULTS, documents)
        .isLessThan(documents / 100);
    JsonArray items = list.bodyAsJsonObject().getJsonArray("items");
    assertThat(items).hasSize(RESULTS);
    JsonObject item = items.getJsonObject(0);
    assertThat(item.fieldNames()).contains("id", "model", "engine", "suite_name", "timestamp", "passed", "simulated",
        "valid", "total_benchmarks", "results", "source_path", "indexed_at").doesNotContain("system_info");
    assertThat(item.getString("model")).isEqualTo("model-3");
    assertThat(item.getString("suite_name")).isEqualTo("performance");
    assertThat(item.getBoolean("passed")).isTrue();
    assertThat(item.getInteger("total_benchmarks")).isEqualTo(2);
    JsonObject throughput = item.getJsonArray("results").getJsonObject(0);
    assertThat(throughput.getString("test_name")).isEqualTo("throughput");
    assertThat(throughput.getJsonObject("metrics")).isEqualTo(new JsonObject().put("output_token_throughput", 1459.2)
        .put("request_throughput", 5.7).put("ttft_ms", new JsonObject().put("p50", 41.0))
        .put("tpot_ms", new JsonObject().put("p50", 9.1)).put("e2e_ms", new JsonObject().put("p50", 2400.5))
        .put("gpu_memory", new JsonObject().put("peak_memory_mb", 20499)));
    JsonObject mmlu = item.getJsonArray("results").getJsonObject(1);
    assertThat(mmlu.getBoolean("passed")).isFalse();
    assertThat(mmlu.getJsonObject("metrics")).isEqualTo(new JsonObject().put("accuracy", 0.61));

    JsonObject whole = server.get("/api/v1/results/" + item.getString("id")).bodyAsJsonObject();
    assertThat(whole.getJsonArray("results").getJsonObject(0).getJsonObject("metrics").getJsonObject("gpu_memory")
        .getJsonArray("samples")).hasSize(SAMPLES);
    assertThat(whole.getJsonObject("system_info")).isNotNull();

    // compare: summaries of the results and the table of their common metrics
    String other = items.getJsonObject(1).getString("id");
    HttpResponse<Buffer> compare = server.post("/api/v1/results/compare",
        new JsonObject().put("ids", new JsonArray().add(item.getString("id")).add(other)));
    assertThat(compare.statusCode()).isEqualTo(200);
    assertThat((long) compare.body().length()).isLessThan(documents / 100);
    JsonObject compared = compare.bodyAsJsonObject();
    assertThat(compared.getJsonArray("items").getJsonObject(0).fieldNames()).doesNotContain("system_info");
    assertThat(compared.getJsonObject("metrics").getJsonArray("throughput.ttft_ms.p99").getList())
        .containsExactly(95.0, 95.0);
  }

  @Test
  void theDashboardListsAndExportsReadSummariesAndStreamWholeDocuments() throws IOException {
    writeLarge();
    TestServer server = servers.start();
    long document = large("model-0", "2026-11-20T10:00:00.000Z").encode().length();

    HttpResponse<Buffer> page = server.get("/results");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat((long) page.body().length()).isLessThan(document);
    assertThat(page.bodyAsString()).contains("output_token_throughput 1459.2");
    HttpResponse<Buffer> home = server.get("/");
    assertThat(home.statusCode()).isEqualTo(200);
    assertThat(home.bodyAsString()).contains("output_token_throughput 1459.2");

    // the export of the list's page carries every whole document, written one after the other
    HttpResponse<Buffer> export = server.get("/results/export.json?per_page=200");
    assertThat(export.statusCode()).isEqualTo(200);
    assertThat(export.getHeader("Content-Disposition")).isEqualTo("attachment; filename=\"svc-results-" + RESULTS + ".json\"");
    JsonObject exported = export.bodyAsJsonObject();
    assertThat(exported.getJsonArray("ids")).hasSize(RESULTS);
    assertThat(exported.getJsonArray("results")).hasSize(RESULTS).allSatisfy(r -> assertThat(((JsonObject) r)
        .getJsonObject("data").getJsonArray("results").getJsonObject(0).getJsonObject("metrics")
        .getJsonObject("gpu_memory").getJsonArray("samples")).hasSize(SAMPLES));
    HttpResponse<Buffer> csv = server.get("/results/export.csv");
    assertThat(csv.statusCode()).isEqualTo(200);
    assertThat(csv.bodyAsString().lines().filter(l -> l.contains("output_token_throughput")).count()).isEqualTo(RESULTS);
  }

  @Test
  void aResultStoredBeforeSummariesIsListedAndGetsItsSummaryFromTheHousekeeping() {
    TestServer server = servers.start();
    String id = "00000000000000aa";
    server.running().database().pool().preparedQuery("INSERT INTO results (id, model, engine, suite_name, timestamp,"
        + " passed, data, created_at) VALUES (?, 'old-model', 'vllm', 'quick', '2025-01-01T00:00:00.000Z', 1, ?,"
        + " '2025-01-01T00:00:00.000Z')")
        .execute(Tuple.of(id, large("old-model", "2025-01-01T00:00:00.000Z").encode())).await();

    JsonObject before = only(server);
    assertThat(before.getString("id")).isEqualTo(id);
    assertThat(before.getJsonArray("results")).isEmpty();

    JsonObject counts = server.vertx().eventBus().<JsonObject>request(EventAddresses.HOUSEKEEPING_RUN, new JsonObject())
        .await().body();
    assertThat(counts.getInteger("summaries")).isEqualTo(1);
    JsonObject after = only(server);
    assertThat(after.getJsonArray("results")).hasSize(2);
    assertThat(after.getJsonArray("results").getJsonObject(0).getJsonObject("metrics")
        .getDouble("output_token_throughput")).isEqualTo(1459.2);
    assertThat(server.get("/results").bodyAsString()).contains("output_token_throughput 1459.2");
  }

  private static JsonObject only(TestServer server) {
    JsonArray items = server.get("/api/v1/results").bodyAsJsonObject().getJsonArray("items");
    assertThat(items).hasSize(1);
    return items.getJsonObject(0);
  }

  @Test
  void listsFilterAndPageAsBefore() throws IOException {
    for (String model : List.of("a", "b", "c")) {
      MetricsFiles.write(servers.results().resolve(model).resolve("metrics.json"),
          MetricsFiles.current(model, "2026-01-0" + (model.charAt(0) - 'a' + 1) + "T00:00:00.000Z"));
    }
    TestServer server = servers.start();
    JsonObject page = server.get("/api/v1/results?per_page=2&page=2").bodyAsJsonObject();
    assertThat(page.getLong("total")).isEqualTo(3);
    assertThat(page.getJsonArray("items")).extracting(o -> ((JsonObject) o).getString("model")).containsExactly("a");
    assertThat(page.getJsonArray("items").getJsonObject(0).getJsonArray("results").getJsonObject(0)
        .getJsonObject("metrics").getDouble("avg_tps")).isEqualTo(103.2);
  }
}
