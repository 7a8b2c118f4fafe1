package dev.svc.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.metrics.Confidence;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import dev.svc.server.results.MetricsFiles;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The results pages over HTTP: list filters and pages, detail charts and formulas, compare, exports, escaping. */
class ResultPagesTest {

  private static final Pattern CHART_DATA =
      Pattern.compile("<script type=\"application/json\" id=\"chart-data\">(.*?)</script>", Pattern.DOTALL);
  private static final Pattern ROW_ID = Pattern.compile("<tr data-result-id=\"([0-9a-f]{16})\"");

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  private void write(String dir, JsonObject data) throws IOException {
    MetricsFiles.write(servers.results().resolve(dir).resolve("metrics.json"), data);
  }

  /** A metrics.json in the full current layout: one throughput benchmark with distributions and GPU samples. */
  private static JsonObject full(String model, String engine, String timestamp, double tps, double ttftP50) {
    JsonObject metrics = new JsonObject()
        .put("avg_tps", tps).put("output_token_throughput", tps).put("request_throughput", 0.4)
        .put("ttft_ms", summary(ttftP50 - 1, ttftP50, ttftP50 + 10, ttftP50 + 15, ttftP50 + 20))
        .put("tpot_ms", summary(9.5, 9.1, 11.0, 11.9, 13.4))
        .put("e2e_ms", summary(2450.0, 2400.5, 2800.0, 2900.0, 3100.25))
        .put("icg_ms", summary(9.6, 9.0, 12.0, 14.0, 30.0))
        .put("total_iterations", 5).put("total_tokens_generated", 1280).put("token_count_source", "usage")
        .put("gpu_memory", new JsonObject().put("peak_memory_mb", 20110).put("avg_memory_mb", 19880.5)
            .put("vram_utilization_pct", 24.5)
            .put("samples", new JsonArray().add(new JsonArray().add(0).add(19800)).add(new JsonArray().add(100).add(20110))
                .add(new JsonArray().add(200).add(19950))));
    return new JsonObject()
        .put("svc_version", "1.8.0").put("suite_name", "quick").put("timestamp", timestamp)
        .put("engine", engine).put("engine_image", "vllm/vllm-openai@sha256:abc").put("model", model)
        .put("passed", true).put("total_benchmarks", 1).put("passed_count", 1).put("failed_count", 0)
        .put("total_time_seconds", 41.87).put("valid", true)
        .put("results", new JsonArray().add(new JsonObject().put("test_name", "throughput").put("test_version", "1.0.0")
            .put("run_number", 1).put("passed", true).put("metrics", metrics)
            .put("load", new JsonObject().put("mode", "concurrency:4").put("seed", 42).put("warmup_requests", 5))
            .put("errors", new JsonArray()).put("timestamp", timestamp)))
        .put("system_info", new JsonObject()
            .put("gpu", new JsonObject().put("model", "NVIDIA H100 80GB HBM3").put("vram_gb", 80).put("count", 1)
                .put("compute_capability", new JsonArray().add(9).add(0)))
            .put("cpu", new JsonObject().put("model", "AMD EPYC 9654").put("cores", 16).put("threads", 32))
            .put("ram_gb", 128).put("cuda_version", "12.4").put("driver_version", "550.54.14"));
  }

  private static JsonObject summary(double mean, double p50, double p90, double p95, double p99) {
    return new JsonObject().put("mean", mean).put("p50", p50).put("p90", p90).put("p95", p95).put("p99", p99)
        .put("min", p50 - 5).put("max", p99 + 5).put("std", 3.25);
  }

  private String page(String path) {
    HttpResponse<Buffer> response = servers.server().get(path);
    assertThat(response.statusCode()).as(path + ": " + response.bodyAsString()).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).startsWith("text/html");
    return response.bodyAsString();
  }

  /** The id of the only result with this model, through the API. */
  private String idOf(String model) {
    JsonArray items = servers.server().get("/api/v1/results?model=" + java.net.URLEncoder.encode(model,
        java.nio.charset.StandardCharsets.UTF_8)).bodyAsJsonObject().getJsonArray("items");
    assertThat(items).as("results of " + model).hasSize(1);
    return items.getJsonObject(0).getString("id");
  }

  private static List<String> rowIds(String html) {
    List<String> ids = new ArrayList<>();
    Matcher m = ROW_ID.matcher(html);
    while (m.find()) {
      ids.add(m.group(1));
    }
    return ids;
  }

  private static JsonObject chartData(String html) {
    Matcher m = CHART_DATA.matcher(html);
    assertThat(m.find()).as("embedded chart data").isTrue();
    return new JsonObject(m.group(1));
  }

  @Test
  void listFiltersByModelEngineSuiteAndTime() throws IOException {
    write("a", full("llama-3-8b", "vllm", "2026-03-01T10:00:00.000Z", 100, 40));
    write("b", full("mistral-7b", "tgi", "2026-03-05T10:00:00.000Z", 90, 50));
    write("c", full("mistral-7b", "vllm", "2026-03-09T10:00:00.000Z", 80, 60).put("suite_name", "performance"));
    TestServer server = servers.start();
    String llama = idOf("llama-3-8b");
    List<String> mistral = new ArrayList<>();
    server.get("/api/v1/results?model=mistral-7b").bodyAsJsonObject().getJsonArray("items")
        .forEach(o -> mistral.add(((JsonObject) o).getString("id")));

    String all = page("/results");
    assertThat(all).contains("id=\"result-filters\"", "id=\"results\"", "<button type=\"submit\" id=\"compare\"");
    assertThat(rowIds(all)).hasSize(3).contains(llama).containsAll(mistral);
    assertThat(all).contains("<input type=\"checkbox\" name=\"compare\" value=\"" + llama + "\"");
    assertThat(all).contains("href=\"/results/" + llama + "\"", "avg_tps 100");

    assertThat(rowIds(page("/results?model=llama-3-8b"))).containsExactly(llama);
    assertThat(rowIds(page("/results?model=mistral-7b&engine=tgi"))).hasSize(1).isSubsetOf(mistral);
    assertThat(rowIds(page("/results?suite_name=performance"))).hasSize(1).isSubsetOf(mistral);
    assertThat(rowIds(page("/results?since=2026-03-05"))).hasSize(2).doesNotContain(llama);
    assertThat(rowIds(page("/results?until=2026-03-05"))).hasSize(2).contains(llama);
    assertThat(rowIds(page("/results?since=2026-03-02T00:00:00Z&until=2026-03-06T00:00"))).hasSize(1)
        .isSubsetOf(mistral);
    assertThat(page("/results?model=nothing-like-this")).contains("No results match these filters.");

    HttpResponse<Buffer> bad = server.get("/results?since=yesterday");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.bodyAsString()).contains("id=\"result-filters-error\"", "&#39;since&#39; must be a date");
  }

  @Test
  void listPaginatesAndKeepsFiltersInPagerLinks() throws IOException {
    for (int i = 0; i < 30; i++) {
      write("run-" + i, MetricsFiles.current("model-" + (i % 2), String.format("2026-01-%02dT10:00:00.000Z", i + 1)));
    }
    TestServer server = servers.start();
    String first = page("/results");
    assertThat(rowIds(first)).hasSize(25);
    assertThat(first).contains("<nav class=\"pager\"", "<a rel=\"next\" href=\"/results?page=2\"", "Page 1 of 2")
        .doesNotContain("rel=\"prev\"");
    String second = page("/results?page=2");
    assertThat(rowIds(second)).hasSize(5).doesNotContainAnyElementsOf(rowIds(first));
    assertThat(second).contains("<a rel=\"prev\" href=\"/results\"").doesNotContain("rel=\"next\"");

    String filtered = page("/results?model=model-1&per_page=4&page=2");
    assertThat(rowIds(filtered)).hasSize(4);
    assertThat(filtered).contains("rel=\"prev\" href=\"/results?model=model-1&amp;per_page=4\"",
        "rel=\"next\" href=\"/results?model=model-1&amp;per_page=4&amp;page=3\"", "Page 2 of 4");
    assertThat(server.get("/results?page=zero").statusCode()).isEqualTo(400);
  }

  @Test
  void detailEmbedsChartDataFormulasAndMetadata() throws IOException {
    write("full", full("meta-llama/Llama-3-8B", "vllm", "2026-03-01T10:00:00.000Z", 103.2, 40.1));
    servers.start();
    String id = idOf("meta-llama/Llama-3-8B");
    String html = page("/results/" + id);

    assertThat(html).contains("<canvas class=\"chart\" id=\"chart-latency\"", "<canvas class=\"chart\" id=\"chart-throughput\"",
        "<canvas class=\"chart\" id=\"chart-gpu-memory\"", "<script src=\"/static/vendor/chart.js/", "/static/results.js");
    assertThat(html).contains("id=\"export-json\" href=\"/results/" + id + "/export.json\"",
        "id=\"export-csv\" href=\"/results/" + id + "/export.csv\"");
    assertThat(html).contains("NVIDIA H100 80GB HBM3", "AMD EPYC 9654", "9.0", "concurrency:4", "vllm/vllm-openai@sha256:abc",
        "41.87").doesNotContain("SIMULATED");

    JsonObject charts = chartData(html);
    JsonObject latency = charts.getJsonObject("latency");
    assertThat(latency.getJsonObject("x").getJsonArray("labels")).containsExactly("p50", "p90", "p95", "p99");
    JsonObject ttft = series(latency, "TTFT");
    assertThat(ttft.getJsonArray("values")).containsExactly(40.1, 50.1, 55.1, 60.1);
    assertThat(series(latency, "E2E").getJsonArray("values")).containsExactly(2400.5, 2800.0, 2900.0, 3100.25);
    assertThat(series(latency, "TPOT").getJsonArray("values")).containsExactly(9.1, 11.0, 11.9, 13.4);
    assertThat(latency.getJsonObject("y").getBoolean("log")).as("TPOT and E2E differ by orders of magnitude").isTrue();

    JsonObject throughput = charts.getJsonObject("throughput");
    assertThat(throughput.getJsonObject("x").getJsonArray("labels")).containsExactly("throughput");
    assertThat(throughput.getJsonArray("series").getJsonObject(0).getJsonArray("values")).containsExactly(103.2);
    assertThat(throughput.getJsonArray("series").getJsonObject(1).getJsonArray("values")).containsExactly(0.4);

    JsonArray points = charts.getJsonObject("gpu_memory").getJsonArray("series").getJsonObject(0).getJsonArray("points");
    assertThat(points).containsExactly(new JsonArray().add(0.0).add(19800.0), new JsonArray().add(0.1).add(20110.0),
        new JsonArray().add(0.2).add(19950.0));

    String formulas = html.substring(html.indexOf("<section id=\"formulas\""));
    assertThat(formulas).contains("t_first − t_send", "(E2E − TTFT) / (N_out − 1)", "t_end − t_send",
        "every t_i − t_{i−1} between content chunks", "Σ N_out / window", "completed requests / window",
        "max(used_mb) over the samples", "[end of warmup, start of cooldown], or [first t_send, last t_end]",
        "population standard deviation");
  }

  @Test
  void detailShowsEachBenchmarksCacheHitFractionAndWhyABenchmarkIsInvalid() throws IOException {
    String reason = "the engine served 97.8 % of the prompt tokens from its prompt cache (above 25 %) though every"
        + " prompt was meant to be new <b>";
    JsonObject marked = full("repeated-model", "llama_cpp", "2026-03-01T10:00:00.000Z", 103.2, 40.1).put("valid", false);
    JsonObject benchmark = marked.getJsonArray("results").getJsonObject(0).put("valid", false).put("invalid_reason", reason);
    benchmark.getJsonObject("metrics").put("cached_prompt_tokens", 1093).put("cache_hit_fraction", 0.9776);
    write("marked", marked);
    JsonObject unknown = full("vllm-model", "vllm", "2026-03-02T10:00:00.000Z", 90, 50);
    unknown.getJsonArray("results").getJsonObject(0).getJsonObject("metrics").putNull("cached_prompt_tokens")
        .putNull("cache_hit_fraction");
    write("unknown", unknown);
    servers.start();

    String html = page("/results/" + idOf("repeated-model"));
    assertThat(scalarRow(html, "cache_hit_fraction")).containsExactly("Cache-hit fraction", "0.9776", "");
    assertThat(scalarRow(html, "cached_prompt_tokens")).containsExactly("Cached prompt tokens", "1093", "tokens");
    assertThat(html).contains("<p class=\"invalid-reason\">Not valid: the engine served 97.8 % of the prompt tokens from"
        + " its prompt cache (above 25 %) though every prompt was meant to be new &lt;b&gt;</p>");
    assertThat(html.substring(html.indexOf("<section class=\"card benchmark\""))).contains("INVALID");
    assertThat(html.substring(html.indexOf("<section id=\"formulas\""))).contains("cached prompt tokens / prompt tokens",
        "Σ prompt tokens the engine took from its prompt cache");

    String vllm = page("/results/" + idOf("vllm-model"));
    assertThat(scalarRow(vllm, "cache_hit_fraction")).as("not reported: unknown, not 0")
        .containsExactly("Cache-hit fraction", "—", "");
    assertThat(vllm).doesNotContain("invalid-reason", "badge-invalid");
  }

  /** The cells of a benchmark card's row for a scalar metric: label, value, unit. */
  private static List<String> scalarRow(String html, String metric) {
    Matcher row = Pattern.compile("<tr data-metric=\"" + metric + "\">(.*?)</tr>", Pattern.DOTALL).matcher(html);
    assertThat(row.find()).as("the row of " + metric).isTrue();
    List<String> cells = new ArrayList<>();
    Matcher cell = Pattern.compile("<t[dh][^>]*>(.*?)</t[dh]>", Pattern.DOTALL).matcher(row.group(1));
    while (cell.find()) {
      cells.add(cell.group(1).replaceAll("<[^>]+>", "").trim());
    }
    return cells;
  }

  @Test
  void longGpuTracesAreThinnedButKeepTheirPeak() throws IOException {
    JsonObject doc = full("long-trace", "vllm", "2026-03-01T10:00:00.000Z", 100, 40);
    JsonArray samples = new JsonArray();
    for (int i = 0; i < 6000; i++) {
      samples.add(new JsonArray().add(i * 100).add(i == 4321 ? 79000 : 20000 + i % 7));
    }
    doc.getJsonArray("results").getJsonObject(0).getJsonObject("metrics").getJsonObject("gpu_memory")
        .put("samples", samples);
    write("long", doc);
    servers.start();

    JsonArray points = chartData(page("/results/" + idOf("long-trace"))).getJsonObject("gpu_memory")
        .getJsonArray("series").getJsonObject(0).getJsonArray("points");
    assertThat(points.size()).isBetween(500, 1000);
    assertThat(points).contains(new JsonArray().add(432.1).add(79000.0));
    assertThat(points.getJsonArray(0).getDouble(0)).isEqualTo(0.0);
    assertThat(points.getJsonArray(points.size() - 1).getDouble(0)).isGreaterThan(598.0);
    List<Double> times = points.stream().map(p -> ((JsonArray) p).getDouble(0)).toList();
    assertThat(times).as("time keeps its order").isSorted();
  }

  private static JsonObject series(JsonObject chart, String label) {
    return chart.getJsonArray("series").stream().map(JsonObject.class::cast).filter(s -> s.getString("label").equals(label))
        .findFirst().orElseThrow(() -> new AssertionError("no series " + label + " in " + chart.encode()));
  }

  @Test
  void detailShowsASweepsStepsInItsBenchmarkCardAndChartsThemInTheOrderRun() throws IOException {
    write("sweep", MetricsFiles.sweep("swept-model", "2026-03-01T10:00:00.000Z", MetricsFiles.threeSweepSteps(), null));
    write("plain", full("plain-model", "vllm", "2026-03-02T10:00:00.000Z", 103.2, 40.1));
    servers.start();
    String html = page("/results/" + idOf("swept-model"));

    List<List<String>> rows = sweepRows(html);
    assertThat(rows).containsExactly(
        List.of("1", "sequential", "—", "1.92", "245.8", "38.2", "44.75", "7.6", "520.3", "20", "0", "yes"),
        List.of("2", "concurrency:16", "—", "11.4", "1459.2", "95.1", "180.4", "10.2", "1390.5", "20", "1", "yes"),
        List.of("3", "poisson:3.2", "3.17", "3.05", "390.4", "41.3", "60.2", "7.9", "545", "20", "0", "INVALID"));
    String table = sweepTable(html);
    assertThat(table).contains("<th scope=\"col\" data-metric=\"achieved_rate\" data-statistic=\"\">"
        + "<a href=\"#formula-achieved_rate\">Achieved rate</a> <span class=\"muted\">(requests/s)</span></th>",
        "data-metric=\"ttft_ms\" data-statistic=\"p99\"><a href=\"#formula-ttft_ms\">TTFT p99</a>");
    assertThat(table).contains("<tr data-step=\"3\" data-load=\"poisson:3.2\" data-valid=\"no\" class=\"sweep-invalid\">",
        "<span class=\"badge badge-invalid\" title=\"" + MetricsFiles.LAG_REASON + "\">INVALID</span>");
    assertThat(Pattern.compile("class=\"sweep-invalid\"").matcher(table).results().count()).as("invalid rows").isEqualTo(1);
    assertThat(html).contains("<li data-step=\"3\">Step 3 (poisson:3.2) is not valid: " + MetricsFiles.LAG_REASON + "</li>",
        "The tables above hold the metrics of the maximum-throughput step, concurrency:16.")
        .doesNotContain("class=\"sweep-note\"");
    assertThat(cardMetrics(html)).as("the note is not a metric row").doesNotContain("sweep_note");
    assertThat(html.substring(html.indexOf("<section id=\"formulas\""))).contains("requests sent / span of their send times");

    JsonObject sweep = chartData(html).getJsonObject("sweep");
    assertThat(html).contains("<canvas class=\"chart\" id=\"chart-sweep\" data-chart=\"sweep\"");
    assertThat(sweep.getJsonObject("x").getString("kind")).isEqualTo("linear");
    assertThat(sweep.getJsonObject("x").getString("title")).isEqualTo("output tokens/s");
    assertThat(sweep.getJsonObject("y").getString("title")).isEqualTo("TTFT p50 (ms)");
    assertThat(sweep.getJsonObject("y1").getString("title")).isEqualTo("E2E p50 (ms)");
    JsonObject ttft = series(sweep, "TTFT p50");
    assertThat(ttft.getJsonArray("points")).as("in the order run, not sorted by throughput").containsExactly(
        new JsonArray().add(245.8).add(38.2), new JsonArray().add(1459.2).add(95.1), new JsonArray().add(390.4).add(41.3));
    assertThat(ttft.getJsonArray("steps")).containsExactly("sequential", "concurrency:16", "poisson:3.2");
    assertThat(ttft.getJsonArray("invalid")).containsExactly(false, false, true);
    assertThat(ttft.containsKey("axis")).isFalse();
    JsonObject e2e = series(sweep, "E2E p50");
    assertThat(e2e.getString("axis")).isEqualTo("y1");
    assertThat(e2e.getJsonArray("points")).containsExactly(new JsonArray().add(245.8).add(520.3),
        new JsonArray().add(1459.2).add(1390.5), new JsonArray().add(390.4).add(545.0));

    String plain = page("/results/" + idOf("plain-model"));
    assertThat(plain).contains("id=\"chart-latency\"").doesNotContain("sweep-steps", "Load sweep", "id=\"chart-sweep\"");
    assertThat(chartData(plain).containsKey("sweep")).isFalse();
  }

  @Test
  void aSweepWithoutOpenLoopStepsShowsItsNoteEscaped() throws IOException {
    String note = "no open-loop steps: the maximum throughput (1.95 requests/s at concurrency:16) is not above the"
        + " sequential rate (1.92 requests/s) by enough to place a rate between them <script>alert(1)</script>";
    JsonArray steps = new JsonArray()
        .add(MetricsFiles.sweepStep("sequential", 1.92, 245.8, 38.2, 44.75, 7.6, 520.3, 20, 0))
        .add(MetricsFiles.sweepStep("concurrency:16", 1.95, 249.6, 410.0, 802.5, 7.7, 8120.0, 20, 0));
    write("noted", MetricsFiles.sweep("serial-engine", "2026-03-01T10:00:00.000Z", steps, note));
    servers.start();
    String html = page("/results/" + idOf("serial-engine"));

    assertThat(sweepRows(html)).as("load, achieved rate, valid").extracting(r -> List.of(r.get(1), r.get(2), r.get(11)))
        .containsExactly(List.of("sequential", "—", "yes"), List.of("concurrency:16", "—", "yes"));
    assertThat(html).contains("<p class=\"sweep-note\">no open-loop steps: the maximum throughput (1.95 requests/s at"
        + " concurrency:16)", "&lt;script&gt;alert(1)&lt;/script&gt;</p>").doesNotContain("<script>alert(1)", "sweep-reasons",
        "badge-invalid");
    assertThat(cardMetrics(html)).doesNotContain("sweep_note");
    JsonArray points = series(chartData(html).getJsonObject("sweep"), "TTFT p50").getJsonArray("points");
    assertThat(points).containsExactly(new JsonArray().add(245.8).add(38.2), new JsonArray().add(249.6).add(410.0));
  }

  /** The sweep table of the page's only swept benchmark. */
  private static String sweepTable(String html) {
    int at = html.indexOf("<table class=\"table sweep-steps\">");
    assertThat(at).as("the sweep table").isPositive();
    return html.substring(at, html.indexOf("</table>", at));
  }

  /** Each body row of the sweep table: the step, its load, then every cell's text (the valid column's badge as its text). */
  private static List<List<String>> sweepRows(String html) {
    return stepRows(sweepTable(html));
  }

  /** Each row of a sweep table's steps: the text of every cell, badges as their text. */
  private static List<List<String>> stepRows(String table) {
    List<List<String>> rows = new ArrayList<>();
    Matcher row = Pattern.compile("<tr data-step=.*?</tr>", Pattern.DOTALL).matcher(table);
    while (row.find()) {
      List<String> cells = new ArrayList<>();
      Matcher cell = Pattern.compile("<t[dh][^>]*>(.*?)</t[dh]>", Pattern.DOTALL).matcher(row.group());
      while (cell.find()) {
        cells.add(cell.group(1).replaceAll("<[^>]+>", "").trim());
      }
      rows.add(cells);
    }
    return rows;
  }

  /** The data-metric keys of the benchmark cards' metric tables (not the sweep table's columns). */
  private static List<String> cardMetrics(String html) {
    List<String> keys = new ArrayList<>();
    Matcher m = Pattern.compile("<tr data-metric=\"([^\"]+)\"").matcher(html);
    while (m.find()) {
      keys.add(m.group(1));
    }
    assertThat(keys).as("metric rows").contains("request_throughput");
    return keys;
  }

  @Test
  void detailRendersLegacySimulatedAndSparseResults() throws IOException {
    write("legacy", new JsonObject().put("kitt_version", "0.9.3").put("suite", "standard").put("engine", "tgi")
        .put("model", "/models/mistral").put("passed", false)
        .put("results", new JsonArray().add(new JsonObject().put("test_name", "latency").put("passed", false)
            .put("metrics", new JsonObject().put("avg_tps", 55.5).put("p50_latency_ms", 12.5).put("p99_latency_ms", 40.0))
            .put("errors", new JsonArray().add("engine timed out")))
            .add(new JsonObject().put("test_name", "mmlu").put("metrics", new JsonObject().put("accuracy", 0.91)
                .put("correct", 91).put("total", 100)))));
    JsonObject simulated = full("sim-model", "vllm", "2026-03-02T10:00:00.000Z", 70, 30).put("simulated", true);
    simulated.getJsonArray("results").getJsonObject(0).getJsonObject("metrics").put("gpu_memory", new JsonObject()
        .putNull("peak_memory_mb").putNull("avg_memory_mb").putNull("vram_utilization_pct")
        .put("samples", new JsonArray()).put("reason", "The agent has no GPU"));
    write("sim", simulated);
    write("bare", new JsonObject().put("model", "bare-model").put("engine", "ollama"));
    servers.start();

    String legacy = page("/results/" + idOf("/models/mistral"));
    assertThat(legacy).contains("Latency (older layout)", "kitt version", "0.9.3", "engine timed out",
        "id=\"chart-latency\"", "id=\"chart-throughput\"", "id=\"chart-accuracy\"").doesNotContain("id=\"chart-gpu-memory\"");
    JsonObject legacyCharts = chartData(legacy);
    assertThat(legacyCharts.getJsonObject("latency").getJsonObject("x").getJsonArray("labels")).containsExactly("p50", "p99");
    assertThat(series(legacyCharts.getJsonObject("latency"), "Latency (older layout)").getJsonArray("values"))
        .containsExactly(12.5, 40.0);
    assertThat(legacyCharts.getJsonObject("accuracy").getJsonArray("series").getJsonObject(0).getJsonArray("values"))
        .containsExactly(0.91);
    assertThat(legacy.substring(legacy.indexOf("<section id=\"formulas\""))).contains("correct / total",
        "request latency as the older tool recorded it");

    String sim = page("/results/" + idOf("sim-model"));
    assertThat(sim).contains("badge-simulated", "SIMULATED", "GPU memory not measured: The agent has no GPU",
        "id=\"chart-latency\"").doesNotContain("id=\"chart-gpu-memory\"");
    assertThat(chartData(sim).containsKey("gpu_memory")).isFalse();

    String bare = page("/results/" + idOf("bare-model"));
    assertThat(bare).contains("This result has no metrics to chart.", "This result lists no benchmarks.")
        .doesNotContain("<canvas");
    assertThat(chartData(bare).isEmpty()).isTrue();
  }

  @Test
  void compareShowsResultsSideBySideAndMarksTheBest() throws IOException {
    write("fast", full("fast-model", "vllm", "2026-03-01T10:00:00.000Z", 200, 30));
    write("slow", full("slow-model", "tgi", "2026-03-02T10:00:00.000Z", 100, 80));
    servers.start();
    String fast = idOf("fast-model");
    String slow = idOf("slow-model");

    String html = page("/results/compare?ids=" + slow + "," + fast);
    String table = html.substring(html.indexOf("<table class=\"table\" id=\"compare-table\">"), html.indexOf("</table>"));
    assertThat(table).contains("slow-model", "fast-model", "data-result-id=\"" + slow + "\"", "data-result-id=\"" + fast + "\"");
    assertThat(table.indexOf(slow)).as("columns in the order asked").isLessThan(table.indexOf(fast));
    assertThat(cells(table, "output_token_throughput", "")).containsExactly("100", "<strong>200</strong>");
    assertThat(cells(table, "ttft_ms", "p50")).containsExactly("80", "<strong>30</strong>");
    assertThat(cells(table, "tpot_ms", "p50")).as("equal values: nothing is best").containsExactly("9.1", "9.1");
    assertThat(table).contains("class=\"num best\"");

    JsonObject charts = chartData(html);
    assertThat(charts.fieldNames()).contains("latency", "throughput", "gpu_memory");
    JsonArray series = charts.getJsonObject("throughput").getJsonArray("series");
    assertThat(series).hasSize(2);
    assertThat(series.getJsonObject(0).getString("label")).isEqualTo("#1 slow-model · tgi");
    assertThat(series.getJsonObject(0).getJsonArray("values")).containsExactly(100.0);
    assertThat(series.getJsonObject(1).getJsonArray("values")).containsExactly(200.0);
    assertThat(charts.getJsonObject("latency").getJsonArray("series")).hasSize(2);
    assertThat(charts.getJsonObject("gpu_memory").getJsonArray("series")).hasSize(2);
    assertThat(html).contains("<canvas class=\"chart\" id=\"chart-compare-latency\"", "<section id=\"formulas\"",
        "t_first − t_send", "href=\"/results/export.csv?ids=" + slow + "," + fast + "\"");

    assertThat(html).as("no sweep, no sweep section").doesNotContain("id=\"sweeps\"", "compare-sweep");

    String noScriptForm = page("/results/compare?compare=" + fast + "&compare=" + slow);
    assertThat(noScriptForm).contains("id=\"compare-table\"");
  }

  /**
   * {@link #full} with its throughput benchmark run 3 times: the entry holds the runs' means, the
   * intervals of output throughput and TTFT p50, and each run's own entry.
   */
  private static JsonObject repeated(String model, String timestamp, double... tps) {
    JsonObject doc = full(model, "vllm", timestamp, Arrays.stream(tps).average().orElseThrow(), 40);
    JsonObject entry = doc.getJsonArray("results").getJsonObject(0);
    entry.remove("run_number");
    JsonArray runs = new JsonArray();
    for (int i = 0; i < tps.length; i++) {
      runs.add(new JsonObject().put("test_name", "throughput").put("run_number", i + 1).put("passed", true)
          .put("metrics", new JsonObject().put("output_token_throughput", tps[i]).put("total_iterations", 5)));
    }
    Confidence throughput = Confidence.of(tps);
    entry.put("repeats", tps.length).put("repeat_runs", runs).put("confidence", new JsonObject().put("method", "student_t")
        .put("level", 0.95).put("figures", new JsonObject().put("output_token_throughput", throughput.toJson(3))
            .put("ttft_ms.p50", Confidence.of(new double[] {39, 40, 41}).toJson(3))));
    return doc;
  }

  @Test
  void aRepeatedResultShowsItsIntervalsOnThePageInTheCsvAndMarksNoiseWhenCompared() throws IOException {
    write("a", repeated("model-a", "2026-03-01T10:00:00.000Z", 100, 104, 96));
    write("b", repeated("model-b", "2026-03-02T10:00:00.000Z", 103, 107, 99));
    write("c", full("model-c", "vllm", "2026-03-03T10:00:00.000Z", 90, 40));
    TestServer server = servers.start();
    String a = idOf("model-a");

    String detail = page("/results/" + a);
    // t(0.975, 2) × 4 / √3 = 9.937
    assertThat(detail).contains("Ran 3 times with new prompts each time", "href=\"#formula-confidence\"",
        "id=\"formula-confidence\"", "t(0.975, n − 1) × s / √n");
    assertThat(detail).containsPattern("data-metric=\"output_token_throughput\"><th scope=\"row\">.*?</th>"
        + "<td class=\"num\">100 ± 9\\.9[0-9]*</td>");
    assertThat(detail).contains("<td class=\"num\">40 ± 2.48");

    List<List<String>> rows = parseCsv(server.get("/results/" + a + "/export.csv").bodyAsString());
    List<List<String>> throughput = rows.stream().skip(1).filter(r -> r.get(8).equals("output_token_throughput"))
        .toList();
    assertThat(throughput).extracting(r -> r.get(7) + "|" + r.get(10) + "|" + r.get(12) + "|" + r.get(13) + "|" + r.get(14))
        .containsExactly("|100|90.063|109.937|3", "1|100|||", "2|104|||", "3|96|||");
    assertThat(rows).anySatisfy(r -> assertThat(r.subList(8, 11)).containsExactly("repeats", "", "3"));

    String html = page("/results/compare?ids=" + a + "," + idOf("model-b") + "," + idOf("model-c"));
    String table = html.substring(html.indexOf("<table class=\"table\" id=\"compare-table\">"), html.indexOf("</table>"));
    List<String> cells = cells(table, "output_token_throughput", "");
    assertThat(cells.get(0)).as("within the noise of the best").startsWith("100 ± 9.9").contains("≈");
    assertThat(cells.get(1)).startsWith("<strong>103 ± 9.9").doesNotContain("≈");
    assertThat(cells.get(2)).as("one run: nothing says it is noise").isEqualTo("90");
    assertThat(table).contains("class=\"num noise\"");

    String ids = a + "," + idOf("model-b") + "," + idOf("model-c");
    assertThat(html).contains("id=\"export-compare-csv\" href=\"/results/compare.csv?ids=" + ids + "\"");
    HttpResponse<Buffer> csv = server.get("/results/compare.csv?ids=" + ids);
    assertThat(csv.statusCode()).isEqualTo(200);
    assertThat(csv.getHeader("Content-Type")).startsWith("text/csv");
    List<List<String>> compared = parseCsv(csv.bodyAsString());
    assertThat(compared.get(0)).containsExactly("benchmark", "metric", "statistic", "unit", "better", "column",
        "result_id", "value", "ci95_low", "ci95_high", "ci_n", "best", "within_noise_of_best");
    assertThat(compared.stream().filter(r -> r.get(1).equals("output_token_throughput"))
        .map(r -> String.join("|", r.subList(5, 13)))).containsExactly(
            "#1|" + a + "|100|90.063|109.937|3|false|true",
            "#2|" + idOf("model-b") + "|103|93.063|112.937|3|true|false",
            "#3|" + idOf("model-c") + "|90||||false|false");
    assertThat(server.get("/results/compare.csv?ids=" + a).statusCode()).isEqualTo(400);
  }

  @Test
  void compareShowsEachResultsSweepStepsCompactlyInTheOrderRun() throws IOException {
    String note = "no open-loop steps <script>alert(1)</script>";
    write("plain", full("plain-model", "vllm", "2026-03-01T10:00:00.000Z", 103.2, 40.1));
    write("sweep", MetricsFiles.sweep("swept-model", "2026-03-02T10:00:00.000Z", MetricsFiles.threeSweepSteps(), null));
    write("noted", MetricsFiles.sweep("serial-engine", "2026-03-03T10:00:00.000Z", new JsonArray()
        .add(MetricsFiles.sweepStep("sequential", 1.92, 245.8, 38.2, 44.75, 7.6, 520.3, 20, 0))
        .add(MetricsFiles.sweepStep("concurrency:16", 1.95, 249.6, 410.0, 802.5, 7.7, 8120.0, 20, 0)), note));
    servers.start();
    String plain = idOf("plain-model");
    String swept = idOf("swept-model");
    String noted = idOf("serial-engine");

    String html = page("/results/compare?ids=" + plain + "," + swept + "," + noted);
    assertThat(html).contains("<section id=\"sweeps\" aria-label=\"Load sweeps\">");
    List<String> blocks = compareSweeps(html);
    assertThat(blocks).as("one per swept benchmark, results in the order asked, none for the plain result").hasSize(2);
    assertThat(blocks.get(0)).startsWith("data-result-id=\"" + swept + "\" data-benchmark=\"throughput\"")
        .contains("<a href=\"/results/" + swept + "\">#2 swept-model · llama_cpp</a> <span class=\"muted\">throughput</span>");
    assertThat(blocks.get(1)).startsWith("data-result-id=\"" + noted + "\"").contains("#3 serial-engine · llama_cpp");

    String first = blocks.get(0);
    assertThat(Pattern.compile("<th scope=\"col\"[^>]*>(.*?)</th>").matcher(first).results()
        .map(m -> m.group(1).replaceAll("<[^>]+>", "")).toList())
        .containsExactly("Load", "Request throughput (requests/s)", "Output token throughput (tokens/s)", "TTFT p50 (ms)");
    assertThat(stepRows(first)).containsExactly(
        List.of("sequential", "1.92", "245.8", "38.2"),
        List.of("concurrency:16", "11.4", "1459.2", "95.1"),
        List.of("poisson:3.2 INVALID", "3.05", "390.4", "41.3"));
    assertThat(first).contains("<tr data-step=\"3\" data-load=\"poisson:3.2\" data-valid=\"no\" class=\"sweep-invalid\">",
        "<span class=\"badge badge-invalid\" title=\"" + MetricsFiles.LAG_REASON + "\">INVALID</span>")
        .doesNotContain("sweep-note");

    String second = blocks.get(1);
    assertThat(stepRows(second)).containsExactly(List.of("sequential", "1.92", "245.8", "38.2"),
        List.of("concurrency:16", "1.95", "249.6", "410"));
    assertThat(second).contains("<p class=\"sweep-note\">no open-loop steps &lt;script&gt;alert(1)&lt;/script&gt;</p>")
        .doesNotContain("badge-invalid", "<script>alert(1)");
    assertThat(html).contains("<dt id=\"formula-request_throughput\"", "<dt id=\"formula-ttft_ms\"");
  }

  /** The compare page's sweep blocks, each from its data-result-id to the next block. */
  private static List<String> compareSweeps(String html) {
    String section = html.substring(html.indexOf("<section id=\"sweeps\""), html.indexOf("<section id=\"charts\""));
    List<String> blocks = new ArrayList<>(List.of(section.split("<div class=\"sweep compare-sweep\" ")));
    blocks.remove(0);
    return blocks;
  }

  /** The cells of the compare-table row of one metric (and statistic). */
  private static List<String> cells(String table, String metric, String statistic) {
    int at = table.indexOf("data-metric=\"" + metric + "\" data-statistic=\"" + statistic + "\"");
    assertThat(at).as("row " + metric + " " + statistic).isPositive();
    String row = table.substring(at, table.indexOf("</tr>", at));
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("<td class=\"num[^\"]*\">(.*?)</td>").matcher(row);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  void unknownIdsGetClearPagesNotErrors() throws IOException {
    write("one", MetricsFiles.current("only-model", "2026-03-01T10:00:00.000Z"));
    TestServer server = servers.start();
    String id = idOf("only-model");

    HttpResponse<Buffer> detail = server.get("/results/0000000000000000");
    assertThat(detail.statusCode()).isEqualTo(404);
    assertThat(detail.getHeader("Content-Type")).startsWith("text/html");
    assertThat(detail.bodyAsString()).contains("Not found", "result 0000000000000000");

    HttpResponse<Buffer> compare = server.get("/results/compare?ids=" + id + ",feedfacefeedface");
    assertThat(compare.statusCode()).isEqualTo(404);
    assertThat(compare.bodyAsString()).contains("id=\"compare-error\"", "No result with id feedfacefeedface")
        .doesNotContain("id=\"compare-table\"");

    HttpResponse<Buffer> single = server.get("/results/compare?ids=" + id);
    assertThat(single.statusCode()).isEqualTo(400);
    assertThat(single.bodyAsString()).contains("Pick at least two results to compare");

    assertThat(server.get("/results/feedfacefeedface/export.csv").statusCode()).isEqualTo(404);
    HttpResponse<Buffer> export = server.get("/results/export.json?ids=" + id + ",feedfacefeedface");
    assertThat(export.statusCode()).isEqualTo(404);
    assertThat(export.bodyAsString()).contains("No result with id feedfacefeedface");
  }

  @Test
  void csvExportQuotesFieldsAndParsesBack() throws IOException {
    String model = "team, \"fast\" model\nv2";
    write("quoted", full(model, "vllm", "2026-03-01T10:00:00.000Z", 103.2, 40.1));
    write("other", MetricsFiles.current("plain", "2026-03-02T10:00:00.000Z", 50));
    TestServer server = servers.start();
    String id = idOf(model);
    String plain = idOf("plain");

    HttpResponse<Buffer> response = server.get("/results/" + id + "/export.csv");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).startsWith("text/csv");
    assertThat(response.getHeader("Content-Disposition")).isEqualTo("attachment; filename=\"svc-result-" + id + ".csv\"");
    String body = response.bodyAsString();
    assertThat(body).contains("\"team, \"\"fast\"\" model\nv2\"").endsWith("\r\n");

    List<List<String>> rows = parseCsv(body);
    assertThat(rows.get(0)).containsExactly("result_id", "model", "engine", "suite", "timestamp", "simulated", "benchmark",
        "run_number", "metric", "statistic", "value", "unit", "ci95_low", "ci95_high", "ci_n");
    // the result's own rows (no benchmark) come first, then one per benchmark metric
    List<List<String>> run = rows.subList(1, rows.size()).stream().filter(r -> r.get(6).isEmpty()).toList();
    assertThat(run).extracting(r -> r.get(8)).containsExactly("svc_version", "engine", "engine_image", "model");
    List<List<String>> data = rows.subList(1, rows.size()).stream().filter(r -> !r.get(6).isEmpty()).toList();
    assertThat(data).allSatisfy(r -> {
      assertThat(r).hasSize(15);
      assertThat(r.get(0)).isEqualTo(id);
      assertThat(r.get(1)).isEqualTo(model);
      assertThat(r.get(6)).isEqualTo("throughput");
    });
    assertThat(data).anySatisfy(r -> assertThat(r.subList(8, 12)).containsExactly("avg_tps", "", "103.2", "tokens/s"));
    assertThat(data).anySatisfy(r -> assertThat(r.subList(8, 12)).containsExactly("ttft_ms", "p99", "60.1", "ms"));
    assertThat(data).anySatisfy(r -> assertThat(r.subList(8, 11)).containsExactly("total_tokens_generated", "", "1280"));
    assertThat(data).anySatisfy(r -> assertThat(r.subList(8, 11)).containsExactly("gpu_memory.peak_memory_mb", "", "20110"));
    assertThat(data).noneSatisfy(r -> assertThat(r.get(8)).contains("samples"));

    HttpResponse<Buffer> all = server.get("/results/export.csv");
    assertThat(all.getHeader("Content-Disposition")).isEqualTo("attachment; filename=\"svc-results-2.csv\"");
    assertThat(parseCsv(all.bodyAsString()).stream().skip(1).map(r -> r.get(0)).distinct()).containsExactly(plain, id);
    HttpResponse<Buffer> filtered = server.get("/results/export.csv?model=plain");
    assertThat(parseCsv(filtered.bodyAsString()).stream().skip(1).map(r -> r.get(0)).distinct()).containsExactly(plain);
  }

  @Test
  void theDetailPageAndTheCsvSayWhatWasMeasured() throws IOException {
    JsonObject measured = full("tiny.gguf", "llama_cpp", "2026-03-01T10:00:00.000Z", 103.2, 40.1)
        .put("engine_image", "svc-local/llama-server:cpu").put("engine_image_digest", "sha256:" + "c".repeat(64))
        .put("engine_version", "b1-de3ff81")
        .put("engine_args", new JsonArray(List.of("svc-local/llama-server:cpu", "-m", "/models/tiny.gguf", "-a", "my model")))
        .put("model_digest", "sha256:" + "d".repeat(64)).put("repeats", 1).put("seed", 7).put("seed_given", true);
    measured.getJsonArray("results").getJsonObject(0).getJsonObject("load").put("prompts_hash", "0123456789abcdef");
    write("measured", measured);
    write("endpoint", full("remote", "vllm", "2026-03-02T10:00:00.000Z", 50, 40).put("engine_image", "endpoint:http://gpu-1:8000")
        .putNull("engine_version").put("engine_version_reason", "GET /version answered HTTP 404").putNull("engine_args")
        .putNull("model_digest").put("model_digest_reason", "the model path /m is not on this host").put("repeats", 1)
        .put("seed", 99).put("seed_given", false));
    TestServer server = servers.start();
    String id = idOf("tiny.gguf");

    String html = page("/results/" + id);
    String card = html.substring(html.indexOf("id=\"result-provenance\""), html.indexOf("id=\"result-system\""));
    assertThat(card).contains("<dt>svc version</dt><dd>1.8.0</dd>", "<dt>Engine version</dt><dd>b1-de3ff81</dd>",
        "<dt>Engine image</dt><dd>svc-local/llama-server:cpu</dd>", "<dt>Image digest</dt><dd>sha256:" + "c".repeat(64),
        "<dt>Launch arguments</dt><dd>svc-local/llama-server:cpu -m /models/tiny.gguf -a &#39;my model&#39;</dd>",
        "<dt>Model digest</dt><dd>sha256:" + "d".repeat(64), "<dt>Seed</dt><dd>7 (given)</dd>",
        "<dt>Repeats</dt><dd>1</dd>", "<dt>Prompts hash</dt><dd>throughput 0123456789abcdef</dd>");
    String remote = page("/results/" + idOf("remote"));
    assertThat(remote).contains("<dt>Engine version</dt><dd>unknown: GET /version answered HTTP 404</dd>",
        "<dt>Launch arguments</dt><dd>none: svc did not start the engine</dd>",
        "<dt>Model digest</dt><dd>unknown: the model path /m is not on this host</dd>",
        "<dt>Seed</dt><dd>99 (drawn for this run)</dd>");

    List<List<String>> rows = parseCsv(server.get("/results/" + id + "/export.csv").bodyAsString());
    List<List<String>> run = rows.stream().skip(1).filter(r -> r.get(6).isEmpty()).map(r -> r.subList(8, 11)).toList();
    assertThat(run).containsExactly(List.of("svc_version", "", "1.8.0"), List.of("engine", "", "llama_cpp"),
        List.of("engine_version", "", "b1-de3ff81"), List.of("engine_image", "", "svc-local/llama-server:cpu"),
        List.of("engine_image_digest", "", "sha256:" + "c".repeat(64)),
        List.of("engine_args", "", "svc-local/llama-server:cpu -m /models/tiny.gguf -a 'my model'"),
        List.of("model", "", "tiny.gguf"), List.of("model_digest", "", "sha256:" + "d".repeat(64)),
        List.of("seed", "", "7"), List.of("seed_given", "", "true"), List.of("repeats", "", "1"),
        List.of("prompts_hash", "", "throughput 0123456789abcdef"));
    List<List<String>> unknown = parseCsv(server.get("/results/" + idOf("remote") + "/export.csv").bodyAsString());
    assertThat(unknown.stream().skip(1).filter(r -> r.get(6).isEmpty()).map(r -> r.subList(8, 11)))
        .contains(List.of("engine_version_reason", "", "GET /version answered HTTP 404"),
            List.of("model_digest_reason", "", "the model path /m is not on this host"))
        .noneMatch(r -> r.get(0).equals("engine_version") || r.get(0).equals("model_digest")
            || r.get(0).equals("engine_args"));
  }

  @Test
  void exportsCarryASweepsStepsTheCsvUnderNumberedMetricNames() throws IOException {
    JsonObject stored = MetricsFiles.sweep("swept-model", "2026-03-01T10:00:00.000Z", MetricsFiles.threeSweepSteps(), "why not");
    write("sweep", stored);
    TestServer server = servers.start();
    String id = idOf("swept-model");

    assertThat(server.get("/results/" + id + "/export.json").bodyAsJsonObject().getJsonObject("data")).isEqualTo(stored);

    List<List<String>> rows = parseCsv(server.get("/results/" + id + "/export.csv").bodyAsString());
    List<List<String>> sweep = rows.stream().filter(r -> r.get(8).startsWith("sweep")).map(r -> r.subList(8, 12)).toList();
    assertThat(sweep).contains(
        List.of("sweep.1.load", "", "sequential", ""),
        List.of("sweep.1.request_throughput", "", "1.92", "requests/s"),
        List.of("sweep.2.output_token_throughput", "", "1459.2", "tokens/s"),
        List.of("sweep.2.ttft_ms", "p99", "180.4", "ms"),
        List.of("sweep.2.error_count", "", "1", ""),
        List.of("sweep.3.achieved_rate", "", "3.17", "requests/s"),
        List.of("sweep.3.queueing_delay_ms", "p99", "14.2", "ms"),
        List.of("sweep.3.valid", "", "false", ""),
        List.of("sweep.3.invalid_reason", "", MetricsFiles.LAG_REASON, ""),
        List.of("sweep_note", "", "why not", ""));
    assertThat(sweep).as("numbered step keys and the note, never a JSON text")
        .allSatisfy(r -> assertThat(r.get(0)).matches("sweep\\.[123]\\.[a-z0-9_]+|sweep_note"))
        .noneSatisfy(r -> assertThat(r.get(2)).startsWith("{"))
        .noneSatisfy(r -> assertThat(r.get(2)).startsWith("["));
    assertThat(sweep.stream().filter(r -> r.get(0).equals("sweep.1.ttft_ms")).map(r -> r.get(1)))
        .containsExactly("mean", "p50", "p90", "p95", "p99", "min", "max", "std");
    assertThat(sweep.stream().filter(r -> r.get(0).startsWith("sweep.1.")).map(r -> r.get(0)).distinct())
        .containsExactly("sweep.1.load", "sweep.1.request_throughput", "sweep.1.output_token_throughput", "sweep.1.ttft_ms",
            "sweep.1.tpot_ms", "sweep.1.e2e_ms", "sweep.1.total_iterations", "sweep.1.error_count", "sweep.1.valid");
  }

  /** A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes. */
  private static List<List<String>> parseCsv(String text) {
    List<List<String>> rows = new ArrayList<>();
    List<String> row = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '"' && field.length() == 0) {
        i++;
        while (true) {
          char q = text.charAt(i);
          if (q == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
            field.append('"');
            i += 2;
          } else if (q == '"') {
            i++;
            break;
          } else {
            field.append(q);
            i++;
          }
        }
      } else if (c == ',') {
        row.add(field.toString());
        field.setLength(0);
        i++;
      } else if (c == '\r' && text.charAt(i + 1) == '\n') {
        row.add(field.toString());
        field.setLength(0);
        rows.add(row);
        row = new ArrayList<>();
        i += 2;
      } else {
        assertThat(c).as("bare quote or line break outside quotes at " + i).isNotIn('"', '\n', '\r');
        field.append(c);
        i++;
      }
    }
    assertThat(row).as("the last record ends with CRLF").isEmpty();
    return rows;
  }

  @Test
  void jsonExportCarriesTheStoredDocumentAndIds() throws IOException {
    JsonObject stored = full("json-model", "vllm", "2026-03-01T10:00:00.000Z", 103.2, 40.1).put("simulated", true);
    write("json", stored);
    write("json2", MetricsFiles.current("json-model-2", "2026-03-02T10:00:00.000Z"));
    TestServer server = servers.start();
    String id = idOf("json-model");
    String id2 = idOf("json-model-2");

    HttpResponse<Buffer> one = server.get("/results/" + id + "/export.json");
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(one.getHeader("Content-Type")).startsWith("application/json");
    assertThat(one.getHeader("Content-Disposition")).isEqualTo("attachment; filename=\"svc-result-" + id + ".json\"");
    JsonObject body = one.bodyAsJsonObject();
    assertThat(body.getString("id")).isEqualTo(id);
    assertThat(body.getJsonObject("data")).isEqualTo(stored);
    assertThat(body.getString("source_path")).endsWith("metrics.json");

    JsonObject both = server.get("/results/export.json?ids=" + id2 + "," + id).bodyAsJsonObject();
    assertThat(both.getJsonArray("ids")).containsExactly(id2, id);
    assertThat(both.getJsonArray("results").getJsonObject(1).getJsonObject("data")).isEqualTo(stored);
    assertThat(both.getJsonArray("results").getJsonObject(0).getJsonObject("data"))
        .isEqualTo(MetricsFiles.current("json-model-2", "2026-03-02T10:00:00.000Z"));
  }

  @Test
  void hostileModelNamesAreEscapedEverywhere() throws IOException {
    String hostile = "</script><script>alert(1)</script><img src=x onerror=alert(2)>";
    write("evil", full(hostile, "vllm", "2026-03-01T10:00:00.000Z", 100, 40));
    write("good", full("good-model", "vllm", "2026-03-02T10:00:00.000Z", 120, 35));
    servers.start();
    String evil = idOf(hostile);
    String good = idOf("good-model");

    for (String path : List.of("/results", "/results/" + evil, "/results/compare?ids=" + evil + "," + good, "/")) {
      String html = page(path);
      assertThat(html).as(path).doesNotContain("<script>alert(1)", "<img src=x").contains("&lt;img src=x");
    }
    JsonObject charts = chartData(page("/results/compare?ids=" + evil + "," + good));
    assertThat(charts.getJsonObject("throughput").getJsonArray("series").getJsonObject(0).getString("label"))
        .as("the embedded JSON decodes back to the name").isEqualTo("#1 " + hostile.substring(hostile.lastIndexOf('/') + 1)
            + " · vllm");
  }

  @Test
  void pagesAndExportsRequireLoginWhenAuthIsOn() throws IOException {
    write("auth", MetricsFiles.current("auth-model", "2026-03-01T10:00:00.000Z"));
    TestServer server = servers.start(new TestServer.Options().authToken("s3cret-token-for-tests"));
    String id = server.get("/api/v1/results", "s3cret-token-for-tests").bodyAsJsonObject().getJsonArray("items")
        .getJsonObject(0).getString("id");
    for (String path : List.of("/results", "/results/" + id, "/results/compare?ids=" + id + "," + id,
        "/results/" + id + "/export.csv", "/results/" + id + "/export.json", "/results/export.csv?ids=" + id)) {
      HttpResponse<Buffer> response = server.client().get(path).followRedirects(false).send().await();
      assertThat(response.statusCode()).as(path).isEqualTo(302);
      assertThat(response.getHeader("Location")).as(path).isEqualTo("/login");
    }
  }
}
