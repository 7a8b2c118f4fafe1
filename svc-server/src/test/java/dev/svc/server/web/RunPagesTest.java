package dev.svc.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import dev.svc.server.Timings;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The quick test and campaign pages over HTTP against a real server: lists with status chips and
 * pages, the launch form and wizard with their DOM hooks, detail pages of queued, running and
 * finished runs, the hand-off from rendered lines to the live stream, 404s and escaping.
 */
class RunPagesTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Pattern LINE = Pattern.compile("<div class=\"line\">(.*?)</div>", Pattern.DOTALL);

  @RegisterExtension
  final TestServers servers =
      new TestServers(o -> o.insecure().timings(Timings.defaults().withSimulatorDelays(5, 15)));

  // --- the quick test list ---

  @Test
  void listShowsEveryTestNewestFirstWithStatusChipsAndServerSidePages() {
    TestServer server = servers.start();
    String agent = registerAgent("gpu-box");
    List<String> ids = new ArrayList<>();
    // an agent runs one test at a time: the running and the completed one have agents of their own
    String runner = registerAgent("gpu-box-runs");
    String finisher = registerAgent("gpu-box-done");
    for (int i = 0; i < 30; i++) {
      ids.add(submit(i == 3 ? runner : i == 4 ? finisher : agent, String.format("/models/m-%02d.safetensors", i), "vllm"));
    }
    String running = ids.get(3);
    String completed = ids.get(4);
    String failed = ids.get(5);
    start(runner, running);
    start(finisher, completed);
    status(completed, "completed");
    assertThat(server.post("/api/v1/quicktest/" + failed + "/cancel", new JsonObject()).statusCode()).isEqualTo(200);

    String first = page("/quicktest");
    assertThat(first).contains("<table class=\"table\" id=\"quicktests\"");
    List<String> firstRows = testRows(first);
    assertThat(firstRows).hasSize(25);
    for (String status : List.of("", "queued", "dispatched", "running", "completed", "failed")) {
      assertThat(first).contains("data-status=\"" + status + "\"");
    }
    assertThat(activeChip(first)).isEqualTo("");
    assertThat(first).contains("rel=\"next\" href=\"/quicktest?page=2\"").doesNotContain("rel=\"prev\"");
    assertThat(createdTimes(first)).isSortedAccordingTo(java.util.Comparator.reverseOrder());
    String row = row(first, "data-test-id", firstRows.get(0));
    assertThat(row.indexOf("<td>")).as("the first cell links to the detail page")
        .isEqualTo(row.indexOf("<td><a href=\"/quicktest/" + firstRows.get(0) + "\""));

    String second = page("/quicktest?page=2");
    List<String> secondRows = testRows(second);
    assertThat(secondRows).hasSize(5);
    assertThat(second).contains("rel=\"prev\" href=\"/quicktest?page=1\"").doesNotContain("rel=\"next\"");
    Set<String> all = new HashSet<>(firstRows);
    all.addAll(secondRows);
    assertThat(all).containsExactlyInAnyOrderElementsOf(ids);

    assertThat(testRows(page("/quicktest?status=running"))).containsExactly(running);
    assertThat(testRows(page("/quicktest?status=completed"))).containsExactly(completed);
    String failedPage = page("/quicktest?status=failed");
    assertThat(testRows(failedPage)).containsExactly(failed);
    assertThat(activeChip(failedPage)).isEqualTo("failed");
    assertThat(row(failedPage, "data-test-id", failed))
        .contains("<span class=\"status status-failed\">failed</span>", "m-05.safetensors", "vllm", "gpu-box");
    String queued = page("/quicktest?status=queued");
    assertThat(testRows(queued)).hasSize(25).doesNotContain(running, completed, failed);
    assertThat(queued).contains("rel=\"next\" href=\"/quicktest?status=queued&amp;page=2\"");
    assertThat(testRows(page("/quicktest?status=queued&page=2"))).hasSize(2).doesNotContain(running, completed, failed);
    assertThat(page("/quicktest?status=dispatched")).contains("No dispatched quick tests.");

    assertThat(testRows(page("/quicktest?status=bogus&page=x"))).hasSize(25);
    assertThat(activeChip(page("/quicktest?status=bogus"))).isEqualTo("");
    assertThat(testRows(page("/quicktest?page=99"))).isEmpty();
    assertThat(testRows(page("/quicktest?status=%zz&page=2"))).as("a broken escape counts as no filter").hasSize(25);
    assertThat(page("/quicktest/new?agent_id=%zz")).contains("<option value=\"" + agent + "\"");
    assertThat(page("/campaigns?page=%zz")).contains("id=\"campaigns\"");
  }

  // --- the new quick test form ---

  @Test
  void newTestFormListsCatalogModelsAndAgentsWithTheirArchitecture() throws IOException {
    Path models = servers.dir().resolve("models");
    Files.createDirectories(models);
    Files.writeString(models.resolve("manifest.json"), new JsonObject().put("models", new JsonArray()
        .add(new JsonObject().put("model_id", "tiny-llama").put("path", "/models/tiny-llama.Q4_K_M.gguf")
            .put("formats", new JsonArray().add("gguf")).put("size_bytes", 480_000_000L))
        .add(new JsonObject().put("model_id", "llama-3-8b-instruct").put("path", "/models/llama-3-8b-instruct")
            .put("formats", new JsonArray().add("safetensors")))).encode());
    TestServer server = servers.start(new TestServer.Options().env("SVC_MODEL_DIR", models.toString()));
    String x86 = createTestAgent("sim-x86", "x86_64");
    String arm = createTestAgent("sim-arm", "arm64");

    String html = page("/quicktest/new?agent_id=" + arm);
    assertThat(html).contains("<form id=\"quicktest-form\"", "id=\"model-search\"", "<ul id=\"model-options\"",
        "id=\"model-path\" name=\"model_path\"", "<select id=\"benchmark\" name=\"benchmark_name\">",
        "<input type=\"checkbox\" id=\"force\" name=\"force\">", "id=\"compat-message\"",
        "<button type=\"submit\" id=\"launch\"", "<select id=\"agent\" name=\"agent_id\"");
    assertThat(html).contains("<option value=\"" + x86 + "\" data-arch=\"amd64\">",
        "<option value=\"" + arm + "\" data-arch=\"arm64\" selected>");
    assertThat(html).contains("data-path=\"/models/tiny-llama.Q4_K_M.gguf\" data-id=\"tiny-llama\" data-formats=\"gguf\"",
        "data-path=\"/models/llama-3-8b-instruct\" data-id=\"llama-3-8b-instruct\" data-formats=\"safetensors\"",
        "480.0 MB");
    // only engines the ARM64 agent can run are offered, with their formats; tgi is named with the reason
    String engines = between(html, "<fieldset class=\"field\" id=\"engines\"", "</fieldset>");
    assertThat(engines).contains("value=\"vllm\"", "value=\"llama_cpp\"", "value=\"ollama\"")
        .doesNotContain("value=\"tgi\"").contains("<span class=\"badge badge-format\">gguf</span>");
    assertThat(html).contains("<li data-engine=\"tgi\">tgi is not available on ARM64: TGI publishes no ARM64 image</li>");
    assertThat(between(page("/quicktest/new?agent_id=" + x86), "id=\"engines\"", "</fieldset>"))
        .contains("value=\"tgi\"");

    // the verdicts the script looks up are the server's Compatibility verdicts
    JsonObject verdicts = new JsonObject(unescape(attribute(html, "run-data", "data-compat")))
        .getJsonObject("format_verdicts");
    assertThat(verdicts.getJsonObject("vllm").getJsonObject("gguf").getString("reason"))
        .isEqualTo("Model format gguf is not supported by vllm; vllm supports: safetensors, pytorch");
    assertThat(verdicts.getJsonObject("llama_cpp").getJsonObject("gguf").getBoolean("compatible")).isTrue();
    assertThat(verdicts.getJsonObject("ollama").getJsonObject("safetensors").getBoolean("compatible")).isFalse();

    for (String script : List.of("/static/model-picker.js", "/static/compat.js", "/static/quicktest-new.js")) {
      assertThat(html).contains("<script src=\"" + script + "\" defer></script>");
      assertThat(server.get(script).statusCode()).as(script).isEqualTo(200);
    }
  }

  @Test
  void newTestFormSaysSoWhenTheCatalogHasNoModels() {
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", servers.dir().resolve("no-models").toString()));
    String html = page("/quicktest/new");
    assertThat(html).contains("The model catalog lists no models", "No manifest.json in",
        "No agents are registered.");
  }

  // --- quick test detail ---

  @Test
  void queuedTestShowsItsMetadataCancelButtonAndStreamsFromItsFirstEvent() {
    servers.start();
    String agent = registerAgent("gpu-box");
    String id = submit(agent, "/models/llama-3-8b-instruct", "vllm");

    String html = page("/quicktest/" + id);
    assertThat(html).contains("<span id=\"test-status\" class=\"status status-queued\">queued</span>",
        "<button type=\"button\" id=\"cancel\"", "/models/llama-3-8b-instruct", "gpu-box", "throughput", "quick",
        "<script src=\"/static/live-log.js\" defer></script>");
    assertThat(attribute(html, "log", "data-live")).isEqualTo("true");
    assertThat(attribute(html, "log", "data-source")).isEqualTo(id);
    assertThat(Long.parseLong(attribute(html, "log", "data-last-event-id"))).as("the queued status event").isPositive();
    assertThat(lines(html)).isEmpty();
    assertThat(html).doesNotContain("id=\"result-link\"");
  }

  @Test
  void aPageOpenedMidRunAndItsStreamShowEveryLineExactlyOnce() {
    servers.start();
    String agent = registerAgent("gpu-box");
    String id = submit(agent, "/models/llama-3-8b-instruct", "vllm");
    start(agent, id);
    logs(id, 1, "line 1", "line 2", "line <3> & \"quoted\"");

    String html = page("/quicktest/" + id);
    assertThat(html).contains("<span id=\"test-status\" class=\"status status-running\">running</span>",
        "id=\"cancel\"", "Started");
    assertThat(attribute(html, "log", "data-live")).isEqualTo("true");
    List<String> rendered = lines(html);
    assertThat(rendered).containsExactly("line 1", "line 2", "line <3> & \"quoted\"");
    long resumeAfter = Long.parseLong(attribute(html, "log", "data-last-event-id"));

    logs(id, 2, "line 4", "line 5");
    status(id, "completed");
    List<JsonObject> frames = streamAfter(id, resumeAfter);
    List<String> streamed = frames.stream().filter(f -> f.getString("event").equals("log"))
        .map(f -> f.getJsonObject("data").getString("line")).toList();
    assertThat(streamed).containsExactly("line 4", "line 5");
    assertThat(frames.get(frames.size() - 1).getJsonObject("data").getString("status")).isEqualTo("completed");

    List<String> union = new ArrayList<>(rendered);
    union.addAll(streamed);
    assertThat(union).isEqualTo(storedLines("/api/v1/quicktest/" + id + "/logs"));

    String finished = page("/quicktest/" + id);
    assertThat(attribute(finished, "log", "data-live")).isEqualTo("false");
    assertThat(lines(finished)).isEqualTo(union);
    assertThat(finished).contains("class=\"status status-completed\">completed</span>", "No result was recorded.")
        .doesNotContain("id=\"cancel\"");
  }

  @Test
  void completedTestShowsStoredLinesKeyMetricsAndTheResultLink() {
    TestServer server = servers.start();
    String agent = createTestAgent("sim-one", "x86_64");
    String id;
    try (EventWaiter events = EventWaiter.everything(server.vertx())) {
      id = submit(agent, "/models/llama-3-8b-instruct", "vllm");
      events.next(e -> id.equals(e.getString("source_id")) && "status".equals(e.getString("type"))
          && "completed".equals(e.getJsonObject("data").getString("status")), WAIT);
    }
    JsonObject test = server.get("/api/v1/quicktest/" + id).bodyAsJsonObject();
    String resultId = test.getString("result_id");
    assertThat(resultId).isNotNull();

    String html = page("/quicktest/" + id);
    assertThat(html).contains("<span id=\"test-status\" class=\"status status-completed\">completed</span>",
        "<a id=\"result-link\" href=\"/results/" + resultId + "\">", "TTFT p50 (ms)", "Output tokens/s",
        test.getString("completed_at")).doesNotContain("id=\"cancel\"");
    assertThat(attribute(html, "log", "data-live")).isEqualTo("false");
    assertThat(lines(html)).hasSize(14).isEqualTo(storedLines("/api/v1/quicktest/" + id + "/logs"));
  }

  @Test
  void cancelledTestShowsTheErrorAndNoCancelButton() {
    TestServer server = servers.start();
    String agent = registerAgent("gpu-box");
    String id = submit(agent, "/models/llama-3-8b-instruct", "vllm");
    assertThat(server.post("/api/v1/quicktest/" + id + "/cancel", new JsonObject()).statusCode()).isEqualTo(200);

    String html = page("/quicktest/" + id);
    assertThat(html).contains("class=\"status status-failed\">failed</span>",
        "<dd class=\"error\" id=\"test-error\">Cancelled by user</dd>").doesNotContain("id=\"cancel\"");
  }

  // --- campaigns ---

  @Test
  void campaignListWizardAndDetailRenderTheirHooksAndTheStoredLogOnceFinished() {
    TestServer server = servers.start();
    String arm = createTestAgent("sim-arm", "arm64");
    JsonObject created = createCampaign("nightly", arm, "/models/a.gguf", "/models/b.gguf");
    String id = created.getString("id");

    String list = page("/campaigns");
    assertThat(list).contains("<table class=\"table\" id=\"campaigns\"", "<a class=\"button primary\" id=\"new-campaign\" href=\"/campaigns/new\">");
    assertThat(row(list, "data-campaign-id", id)).contains("nightly", "sim-arm", "status-draft", "0 / 2");
    assertThat(page("/campaigns?status=completed")).doesNotContain("data-campaign-id=\"" + id + "\"");

    String wizard = page("/campaigns/new");
    for (int step = 1; step <= 4; step++) {
      assertThat(wizard).contains("<section data-step=\"" + step + "\"");
    }
    assertThat(wizard).contains("id=\"wizard-next\"", "id=\"wizard-back\"", "id=\"campaign-name\"",
        "<option value=\"" + arm + "\" data-arch=\"arm64\">", "id=\"campaign-model-search\"",
        "<ul id=\"campaign-model-options\"", "<ul id=\"campaign-models\"", "id=\"campaign-matrix\"",
        "id=\"campaign-force\"", "id=\"campaign-create-launch\"", "<script src=\"/static/campaign-new.js\" defer></script>");
    String tgi = between(wizard, "data-engine=\"tgi\"", "</label>");
    assertThat(tgi).contains("<input type=\"checkbox\" name=\"engines\" value=\"tgi\" disabled>",
        "<span class=\"platform-warning\">tgi is not available on ARM64: TGI publishes no ARM64 image</span>");
    assertThat(between(wizard, "data-engine=\"llama_cpp\"", "</label>"))
        .contains("<input type=\"checkbox\" name=\"engines\" value=\"llama_cpp\">", "badge-format\">gguf<")
        .doesNotContain("platform-warning");

    String draft = page("/campaigns/" + id);
    assertThat(draft).contains("<span id=\"campaign-status\" class=\"status status-draft\">draft</span>",
        "id=\"launch-campaign\"", "id=\"campaign-progress\"", "<table class=\"table\" id=\"campaign-rows\">",
        "Not launched yet.").doesNotContain("id=\"cancel\"");
    assertThat(attribute(draft, "log", "data-live")).isEqualTo("false");

    try (EventWaiter events = EventWaiter.source(server.vertx(), id)) {
      assertThat(server.post("/api/v1/campaigns/" + id + "/launch", new JsonObject()).statusCode()).isEqualTo(202);
      events.status("completed", WAIT);
    }
    String done = page("/campaigns/" + id);
    assertThat(done).contains("<span id=\"campaign-status\" class=\"status status-completed\">completed</span>",
        "<dd data-counter=\"done\">2 / 2</dd>", "<dd data-counter=\"succeeded\">2</dd>")
        .doesNotContain("id=\"cancel\"", "id=\"launch-campaign\"");
    assertThat(attribute(done, "log", "data-live")).isEqualTo("false");
    List<String> stored = storedLines("/api/v1/campaigns/" + id + "/logs");
    assertThat(stored).isNotEmpty().anyMatch(l -> l.startsWith("[2/2] "));
    assertThat(lines(done)).isEqualTo(stored);
    String rows = between(done, "id=\"campaign-rows\"", "</table>");
    JsonArray tests = server.get("/api/v1/campaigns/" + id).bodyAsJsonObject().getJsonArray("quick_tests");
    for (Object t : tests) {
      JsonObject test = (JsonObject) t;
      assertThat(row(rows, "data-test-id", test.getString("id"))).contains(
          "href=\"/quicktest/" + test.getString("id") + "\"", "status-completed",
          "href=\"/results/" + test.getString("result_id") + "\"");
    }
    assertThat(row(page("/campaigns?status=completed"), "data-campaign-id", id)).contains("2 / 2");
    assertThat(page("/quicktest/" + tests.getJsonObject(0).getString("id")))
        .contains("<a href=\"/campaigns/" + id + "\">row 1</a>");
  }

  @Test
  void aCampaignPageOpenedMidRunAndItsStreamShowEveryLineExactlyOnce() {
    TestServer server = servers.start();
    String agent = registerAgent("gpu-box");
    String id = createCampaign("live one", agent, "/models/a.safetensors").getString("id");
    String testId;
    String html;
    try (EventWaiter events = EventWaiter.source(server.vertx(), id)) {
      assertThat(server.post("/api/v1/campaigns/" + id + "/launch", new JsonObject()).statusCode()).isEqualTo(202);
      testId = firstRowOf(id);
      start(agent, testId);
      logs(testId, 1, "one", "two");
      events.next(e -> "log".equals(e.getString("type")) && "[1/1] two".equals(e.getJsonObject("data").getString("line")),
          WAIT);
      html = page("/campaigns/" + id);
    }
    assertThat(html).contains("class=\"status status-running\">running</span>", "id=\"cancel\"");
    assertThat(attribute(html, "log", "data-live")).isEqualTo("true");
    List<String> rendered = lines(html);
    assertThat(rendered).contains("[1/1] one", "[1/1] two");
    long resumeAfter = Long.parseLong(attribute(html, "log", "data-last-event-id"));

    logs(testId, 2, "three");
    status(testId, "completed");
    List<String> streamed = streamAfter(id, resumeAfter).stream().filter(f -> f.getString("event").equals("log"))
        .map(f -> f.getJsonObject("data").getString("line")).toList();
    assertThat(streamed).contains("[1/1] three");
    List<String> union = new ArrayList<>(rendered);
    union.addAll(streamed);
    assertThat(union).isEqualTo(storedLines("/api/v1/campaigns/" + id + "/logs"));
  }

  // --- not found and escaping ---

  @Test
  void unknownIdsRenderTheNotFoundPage() {
    TestServer server = servers.start();
    for (String path : List.of("/quicktest/0123456789abcdef", "/campaigns/0123456789abcdef", "/quicktest/%3Cb%3Ex")) {
      HttpResponse<Buffer> response = server.get(path);
      assertThat(response.statusCode()).as(path).isEqualTo(404);
      assertThat(response.getHeader("Content-Type")).startsWith("text/html");
      assertThat(response.bodyAsString()).contains("Not found", "<nav").doesNotContain("<b>x");
    }
    assertThat(server.get("/quicktest/0123456789abcdef").bodyAsString()).contains("quick test 0123456789abcdef");
    assertThat(server.get("/campaigns/0123456789abcdef").bodyAsString()).contains("campaign 0123456789abcdef");
  }

  @Test
  void hostileNamesAndPathsAreEscapedEverywhere() throws IOException {
    Path models = servers.dir().resolve("models");
    Files.createDirectories(models);
    Files.writeString(models.resolve("manifest.json"), new JsonArray().add(new JsonObject()
        .put("model_id", "<script>alert('id')</script>").put("path", "/models/\"><img src=x onerror=alert(1)>.gguf"))
        .encode());
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", models.toString()));
    // a real agent: its test moves only when the test says so (a test agent's simulation may end first)
    String agent = registerAgent("<script>alert('agent')</script>");
    String hostilePath = "/models/<img src=x onerror=alert(2)>/\"quoted\"";
    String id = submit(agent, hostilePath, "vllm");
    String campaign = createCampaign("<b onmouseover=alert(3)>c</b>", agent, hostilePath).getString("id");
    start(agent, id);
    logs(id, 1, "<script>alert('log')</script>");

    for (String path : List.of("/quicktest", "/quicktest/new", "/quicktest/" + id, "/campaigns", "/campaigns/new",
        "/campaigns/" + campaign)) {
      String html = page(path);
      assertThat(html).as(path).doesNotContain("<script>alert", "<img src=x", "<b onmouseover");
    }
    assertThat(page("/quicktest/" + id)).contains("&lt;script&gt;alert(&#39;log&#39;)&lt;/script&gt;",
        "&lt;img src=x onerror=alert(2)&gt;", "&lt;script&gt;alert(&#39;agent&#39;)&lt;/script&gt;");
    assertThat(page("/quicktest/new")).contains("&lt;script&gt;alert(&#39;id&#39;)&lt;/script&gt;",
        "data-path=\"/models/&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.gguf\"");
    assertThat(page("/campaigns")).contains("&lt;b onmouseover=alert(3)&gt;c&lt;/b&gt;");
  }

  @Test
  void runPagesHaveNoInlineScriptOrStyleAndServeEveryScriptTheyName() {
    TestServer server = servers.start();
    String agent = createTestAgent("sim", "x86_64");
    String test = submit(agent, "/models/tiny.gguf", "llama_cpp");
    String campaign = createCampaign("c", agent, "/models/tiny.gguf").getString("id");
    Set<String> scripts = new HashSet<>();
    for (String path : List.of("/quicktest", "/quicktest/new", "/quicktest/" + test, "/campaigns", "/campaigns/new",
        "/campaigns/" + campaign)) {
      HttpResponse<Buffer> response = server.get(path);
      assertThat(response.getHeader("Content-Security-Policy")).as(path).isEqualTo(SecurityHeaders.CSP);
      String html = response.bodyAsString();
      assertThat(html).as(path + ": no inline script or style").doesNotContainPattern("<script(?![^>]*\\ssrc=)")
          .doesNotContain("<style").doesNotContainPattern("\\sstyle=").doesNotContainPattern("\\son[a-z]+=");
      scripts.addAll(matches(html, "<script src=\"(/static/[^\"]+)\""));
    }
    assertThat(scripts).contains("/static/model-picker.js", "/static/compat.js", "/static/live-log.js",
        "/static/page-sections.js", "/static/quicktest-new.js", "/static/quicktest-detail.js",
        "/static/campaign-new.js", "/static/campaign-detail.js", "/static/run-list.js");
    for (String script : scripts) {
      HttpResponse<Buffer> response = server.get(script);
      assertThat(response.statusCode()).as(script).isEqualTo(200);
      assertThat(response.getHeader("Content-Type")).as(script).contains("javascript");
    }
  }

  @Test
  void runPagesNeedALoginWhenATokenIsSet() {
    WebClient noRedirects = servers.start(new TestServer.Options().authToken("secret")).clientNotFollowingRedirects();
    for (String path : List.of("/quicktest", "/quicktest/new", "/quicktest/0123456789abcdef", "/campaigns",
        "/campaigns/new", "/campaigns/0123456789abcdef")) {
      HttpResponse<Buffer> response = noRedirects.get(path).send().await();
      assertThat(response.statusCode()).as(path).isEqualTo(302);
      assertThat(response.getHeader("Location")).as(path).isEqualTo("/login");
    }
  }

  // --- helpers: the API ---

  private String createTestAgent(String name, String arch) {
    HttpResponse<Buffer> created = servers.server().post("/api/v1/agents/test",
        new JsonObject().put("name", name).put("cpu_arch", arch));
    assertThat(created.statusCode()).as(created.bodyAsString()).isBetween(200, 201);
    return created.bodyAsJsonObject().getString("id");
  }

  /** A real (non-simulated) agent: its tests move only when the test posts their status and logs. */
  private String registerAgent(String name) {
    HttpResponse<Buffer> registered = servers.server().post("/api/v1/agents/register",
        new JsonObject().put("name", name).put("hostname", name + ".lab").put("cpu_arch", "x86_64"));
    assertThat(registered.statusCode()).as(registered.bodyAsString()).isBetween(200, 201);
    JsonObject body = registered.bodyAsJsonObject();
    return body.getString("id", body.getString("agent_id"));
  }

  private String submit(String agentId, String modelPath, String engine) {
    HttpResponse<Buffer> response = servers.server().post("/api/v1/quicktest",
        new JsonObject().put("agent_id", agentId).put("model_path", modelPath).put("engine_name", engine));
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(202);
    return response.bodyAsJsonObject().getString("id");
  }

  /** The agent's heartbeat takes its oldest queued test, which must be this one, and reports it running. */
  private void start(String agentId, String testId) {
    HttpResponse<Buffer> beat = servers.server().post("/api/v1/agents/" + agentId + "/heartbeat", new JsonObject());
    assertThat(beat.bodyAsJsonObject().getJsonArray("commands").getJsonObject(0).getString("test_id")).isEqualTo(testId);
    status(testId, "running");
  }

  private void status(String testId, String status) {
    HttpResponse<Buffer> response = servers.server().post("/api/v1/quicktest/" + testId + "/status",
        new JsonObject().put("status", status));
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(200);
  }

  private void logs(String testId, int seq, String... lines) {
    HttpResponse<Buffer> response = servers.server().post("/api/v1/quicktest/" + testId + "/logs",
        new JsonObject().put("lines", new JsonArray(List.of(lines))).put("seq", seq));
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(200);
  }

  private JsonObject createCampaign(String name, String agentId, String... modelPaths) {
    JsonArray models = new JsonArray();
    for (String path : modelPaths) {
      models.add(new JsonObject().put("name", path).put("path", path));
    }
    String engine = modelPaths[0].endsWith(".gguf") ? "llama_cpp" : "vllm";
    HttpResponse<Buffer> response = servers.server().post("/api/v1/campaigns", new JsonObject().put("name", name)
        .put("agent_id", agentId).put("config", new JsonObject().put("models", models)
            .put("engines", new JsonArray().add(new JsonObject().put("name", engine)))));
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(201);
    return response.bodyAsJsonObject();
  }

  /** The quick test of a launched campaign's first row, once the executor has created it. */
  private String firstRowOf(String campaignId) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      JsonArray tests = servers.server().get("/api/v1/campaigns/" + campaignId).bodyAsJsonObject()
          .getJsonArray("quick_tests");
      if (!tests.isEmpty()) {
        return tests.getJsonObject(0).getString("id");
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("Campaign " + campaignId + " created no row within " + WAIT);
  }

  private List<String> storedLines(String path) {
    List<String> out = new ArrayList<>();
    servers.server().get(path).bodyAsJsonObject().getJsonArray("lines")
        .forEach(l -> out.add(((JsonObject) l).getString("line")));
    return out;
  }

  /** The frames of a source's stream resumed after an event id, read until the server ends it (terminal status). */
  private List<JsonObject> streamAfter(String sourceId, long lastEventId) {
    HttpResponse<Buffer> response = TestServer.send(servers.server().client(), HttpMethod.GET,
        "/api/v1/events/stream/" + sourceId + "?last_event_id=" + lastEventId, null, null,
        MultiMap.caseInsensitiveMultiMap().add("Accept", "text/event-stream"));
    assertThat(response.statusCode()).isEqualTo(200);
    List<JsonObject> frames = new ArrayList<>();
    for (String block : response.bodyAsString().split("\n\n")) {
      JsonObject frame = new JsonObject();
      for (String line : block.split("\n")) {
        if (line.startsWith("id: ")) {
          frame.put("id", Long.parseLong(line.substring(4)));
        } else if (line.startsWith("event: ")) {
          frame.put("event", line.substring(7));
        } else if (line.startsWith("data: ")) {
          frame.put("data", new JsonObject(line.substring(6)));
        }
      }
      if (frame.containsKey("event")) {
        assertThat(frame.getLong("id")).isGreaterThan(lastEventId);
        frames.add(frame);
      }
    }
    return frames;
  }

  // --- helpers: the HTML ---

  private String page(String path) {
    HttpResponse<Buffer> response = servers.server().get(path);
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).startsWith("text/html");
    return response.bodyAsString();
  }

  private static List<String> testRows(String html) {
    return matches(html, "<tr data-test-id=\"([^\"]+)\"");
  }

  private static List<String> createdTimes(String html) {
    return matches(html, "<time datetime=\"([^\"]+)\">");
  }

  private static String activeChip(String html) {
    List<String> active = matches(html, "<a class=\"chip active\" data-status=\"([^\"]*)\"");
    assertThat(active).hasSize(1);
    return active.get(0);
  }

  /** The log lines a page rendered, as text. */
  private static List<String> lines(String html) {
    String log = between(html, "id=\"log\"", "</div>\n<p id=\"log-state\"");
    List<String> out = new ArrayList<>();
    Matcher m = LINE.matcher(log);
    while (m.find()) {
      out.add(unescape(m.group(1)));
    }
    return out;
  }

  /** The value of an attribute on the element with the given id. */
  private static String attribute(String html, String id, String name) {
    String tag = between(html, "id=\"" + id + "\"", ">");
    Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(tag);
    assertThat(m.find()).as(name + " on #" + id).isTrue();
    return m.group(1);
  }

  private static String row(String html, String attribute, String id) {
    return between(html, attribute + "=\"" + id + "\"", "</tr>");
  }

  private static String between(String html, String from, String to) {
    int start = html.indexOf(from);
    assertThat(start).as("'" + from + "' in the page").isNotNegative();
    int end = html.indexOf(to, start + from.length());
    assertThat(end).as("'" + to + "' after '" + from + "'").isNotNegative();
    return html.substring(start, end);
  }

  private static List<String> matches(String html, String regex) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile(regex).matcher(html);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String unescape(String text) {
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'")
        .replace("&#x27;", "'").replace("&amp;", "&");
  }
}
