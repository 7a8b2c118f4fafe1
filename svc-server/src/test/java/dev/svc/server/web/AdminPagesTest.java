package dev.svc.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.tls.Fingerprint;
import dev.svc.core.tls.Pem;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The admin pages as a browser receives them: the Enrol a GPU host card, the Create Test Agent form, an agent's Settings and
 * Storage cards, the global Settings page and the Models page, with the DOM hooks the browser tests use.
 */
class AdminPagesTest {

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  private String page(String path) {
    HttpResponse<Buffer> response = servers.server().get(path);
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).startsWith("text/html");
    String html = response.bodyAsString();
    assertCspFriendly(path, html);
    return html;
  }

  /** The strict CSP forbids inline scripts, inline handlers and style attributes: none may appear. */
  private static void assertCspFriendly(String path, String html) {
    Matcher tags = Pattern.compile("<([a-zA-Z]+)([^>]*)>").matcher(html);
    while (tags.find()) {
      String attributes = tags.group(2).replaceAll("\"[^\"]*\"", "\"\"");
      assertThat(attributes).as(path + ": " + tags.group()).doesNotContainPattern("(?i)\\s(style|on[a-z]+)=");
      if (tags.group(1).equalsIgnoreCase("script")) {
        assertThat(attributes).as(path + ": every script is a file").contains("src=");
      }
    }
  }

  private String createTestAgent(String name) {
    HttpResponse<Buffer> created = servers.server().post("/api/v1/agents/test", new JsonObject().put("name", name));
    assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(201);
    return created.bodyAsJsonObject().getString("id");
  }

  private String registerAgent(String name) {
    HttpResponse<Buffer> registered = servers.server().post("/api/v1/agents/register",
        new JsonObject().put("name", name).put("hostname", name + ".lab"));
    assertThat(registered.statusCode()).as(registered.bodyAsString()).isEqualTo(201);
    return registered.bodyAsJsonObject().getString("agent_id");
  }

  /** The element that carries {@code marker} (an attribute), from its tag's start to the end of the tag. */
  private static String tag(String html, String marker) {
    int at = html.indexOf(marker);
    assertThat(at).as(marker).isNotNegative();
    int open = html.lastIndexOf('<', at);
    return html.substring(open, html.indexOf('>', at) + 1);
  }

  /** The text of the element that carries {@code marker}, up to the next tag. */
  private static String text(String html, String marker) {
    int at = html.indexOf(marker);
    assertThat(at).as(marker).isNotNegative();
    int start = html.indexOf('>', at) + 1;
    return html.substring(start, html.indexOf('<', start));
  }

  /** The section with the given id, up to its closing tag. */
  private static String section(String html, String id) {
    int at = html.indexOf("<section class=\"card admin-card\" id=\"" + id + "\"");
    assertThat(at).as(id).isNotNegative();
    return html.substring(at, html.indexOf("</section>", at));
  }

  // --- agents ---

  @Test
  void agentsPageOffersTheCreateTestAgentFormWithTheApisIntegerLimits() {
    TestServer server = servers.start();
    String html = page("/agents");

    assertThat(html).contains("<form id=\"create-test-agent\"", "id=\"create-test-agent-error\"",
        "<script src=\"/static/agent-admin.js\" defer></script>", "type=\"submit\"");
    for (String name : new String[] {"name", "gpu_info", "gpu_count", "cpu_info", "ram_gb", "environment_type"}) {
      assertThat(html).as(name).contains("name=\"" + name + "\"");
      assertThat(html).as(name).contains("class=\"field-error\" data-error-for=\"" + name + "\"");
    }
    assertThat(html).contains("<select id=\"cta-cpu_arch\" name=\"cpu_arch\">",
        "<option value=\"x86_64\" selected>x86_64</option>", "<option value=\"arm64\">arm64</option>");
    String gpuCount = tag(html, "name=\"gpu_count\"");
    String ramGb = tag(html, "name=\"ram_gb\"");
    assertThat(gpuCount).contains("data-min=\"0\"", "data-max=\"64\"");
    assertThat(ramGb).contains("data-min=\"1\"", "data-max=\"65536\"");

    // the browser's limits are the API's: just outside is refused with the field named, the edge accepted
    HttpResponse<Buffer> tooMany = server.post("/api/v1/agents/test", new JsonObject().put("name", "a").put("gpu_count", 65));
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(tooMany.bodyAsJsonObject().getString("error")).isEqualTo("Field 'gpu_count' must be between 0 and 64");
    HttpResponse<Buffer> noRam = server.post("/api/v1/agents/test", new JsonObject().put("name", "a").put("ram_gb", 0));
    assertThat(noRam.bodyAsJsonObject().getString("error")).isEqualTo("Field 'ram_gb' must be between 1 and 65536");
    HttpResponse<Buffer> words = server.post("/api/v1/agents/test", new JsonObject().put("name", "a").put("gpu_count", "two"));
    assertThat(words.bodyAsJsonObject().getString("error")).isEqualTo("Field 'gpu_count' must be an integer");
    HttpResponse<Buffer> edge = server.post("/api/v1/agents/test", new JsonObject().put("name", "edge")
        .put("gpu_count", 64).put("ram_gb", 65536).put("cpu_arch", "arm64").put("environment_type", "dgx"));
    assertThat(edge.statusCode()).isEqualTo(201);
    String detail = page("/agents/" + edge.bodyAsJsonObject().getString("id"));
    assertThat(detail).contains("64 × NVIDIA H100 80GB HBM3", "arm64", "65536", "dgx");
  }

  @Test
  void agentsPageOffersTheEnrolCardAboveTheTestAgentFormWithoutAFingerprintOnPlainHttp() {
    TestServer server = servers.start();
    String html = page("/agents");

    int enrol = html.indexOf("id=\"enrol-agent-card\"");
    assertThat(enrol).as("the enrol card").isPositive()
        .isGreaterThan(html.indexOf("id=\"agents\"")).isLessThan(html.indexOf("id=\"create-test-agent-card\""));
    String card = section(html, "enrol-agent-card");
    assertThat(card).contains("<h2>Enrol a GPU host</h2>", "<form id=\"enrol-agent\"", "name=\"name\"",
        "class=\"field-error\" data-error-for=\"name\"", "type=\"submit\"", "id=\"enrol-agent-status\"",
        "id=\"enrol-token\"", "id=\"enrol-commands\"", "data-copy=\"enrol-token\"",
        "shown only this once", "Rotate the agent's token");
    assertThat(tag(card, "id=\"enrol-token\"")).contains("readonly");
    assertThat(tag(card, "id=\"enrol-result\"")).as("nothing to show before an agent is provisioned").contains("hidden");
    assertThat(tag(card, "id=\"enrol-agent-card\"")).as("plain HTTP: no CA to pin").doesNotContain("data-ca-fingerprint");

    // what the button sends: a new agent with its token, once; the name then taken
    HttpResponse<Buffer> provisioned = server.post("/api/v1/agents", new JsonObject().put("name", "gpu-host-9"));
    assertThat(provisioned.statusCode()).as(provisioned.bodyAsString()).isEqualTo(201);
    JsonObject agent = provisioned.bodyAsJsonObject();
    assertThat(agent.getString("token")).startsWith(agent.getString("token_prefix"));
    HttpResponse<Buffer> again = server.post("/api/v1/agents", new JsonObject().put("name", "gpu-host-9"));
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.bodyAsJsonObject().getString("error")).isEqualTo("An agent named 'gpu-host-9' already exists");
    String row = page("/agents").split("data-agent-id=\"" + agent.getString("agent_id") + "\"", 2)[1];
    assertThat(row.substring(0, row.indexOf("</tr>"))).contains("gpu-host-9", "status-provisioned");
  }

  @Test
  void agentsPageCarriesTheCaFingerprintOnHttps() {
    try (TestServer https = TestServer.start(servers.dir().resolve("https-home"), new TestServer.Options())) {
      assertThat(https.tls()).isTrue();
      HttpResponse<Buffer> response = https.get("/agents");
      assertThat(response.statusCode()).isEqualTo(200);
      String html = response.bodyAsString();
      assertCspFriendly("/agents (https)", html);

      String fingerprint = Fingerprint.sha256(Pem.readCertificate(https.home().certs().resolve("ca.pem")));
      assertThat(fingerprint).matches("([0-9A-F]{2}:){31}[0-9A-F]{2}").isEqualTo(https.running().caFingerprint());
      assertThat(tag(html, "id=\"enrol-agent-card\"")).contains("data-ca-fingerprint=\"" + fingerprint + "\"");
    }
  }

  @Test
  void testAgentsSettingsCardHidesStorageSettingsAndHasNoStorageCard() {
    TestServer server = servers.start();
    String id = createTestAgent("sim-settings");
    assertThat(server.put("/api/v1/agents/" + id + "/settings", null,
        new JsonObject().put("heartbeat_interval_s", 45).put("kitt_image", "svc/bench:local")).statusCode()).isEqualTo(200);

    String html = page("/agents/" + id);

    String card = section(html, "settings-card");
    assertThat(card).contains("<form id=\"agent-settings\"", "data-agent-id=\"" + id + "\"", "id=\"agent-settings-status\"",
        "type=\"submit\"");
    assertThat(tag(card, "name=\"heartbeat_interval_s\"")).contains("value=\"45\"", "data-min=\"10\"", "data-max=\"300\"");
    assertThat(tag(card, "name=\"kitt_image\"")).contains("value=\"svc/bench:local\"");
    assertThat(card).doesNotContain("model_storage_dir", "model_share_source", "model_share_mount", "auto_cleanup");
    assertThat(html).doesNotContain("id=\"storage-card\"", "id=\"cleanup-storage\"");
  }

  @Test
  void registeredAgentShowsEverySettingAndTheStorageCardWithFreeSpace() {
    TestServer server = servers.start();
    String id = registerAgent("gpu-box-1");
    assertThat(server.post("/api/v1/agents/" + id + "/heartbeat", new JsonObject().put("status", "idle")
        .put("storage_gb_free", 512.0)).statusCode()).isEqualTo(200);
    assertThat(server.put("/api/v1/agents/" + id + "/settings", null, new JsonObject()
        .put("model_share_source", "nas:/exports/models").put("model_share_mount", "/mnt/models")
        .put("auto_cleanup", false)).statusCode()).isEqualTo(200);

    String html = page("/agents/" + id);

    String card = section(html, "settings-card");
    assertThat(tag(card, "name=\"model_storage_dir\"")).contains("value=\"~/.svc/models\"");
    assertThat(tag(card, "name=\"model_share_source\"")).contains("value=\"nas:/exports/models\"");
    assertThat(tag(card, "name=\"model_share_mount\"")).contains("value=\"/mnt/models\"");
    assertThat(tag(card, "name=\"auto_cleanup\"")).contains("type=\"checkbox\"").doesNotContain("checked");
    assertThat(tag(card, "name=\"heartbeat_interval_s\"")).contains("value=\"30\"");
    assertThat(card).contains("name=\"kitt_image\"");

    String storage = section(html, "storage-card");
    assertThat(text(storage, "id=\"storage-free\"")).isEqualTo("512.0 GB");
    assertThat(tag(storage, "id=\"cleanup-storage\"")).startsWith("<button").contains("type=\"submit\"");
    assertThat(storage).contains("data-agent-id=\"" + id + "\"", "id=\"cleanup-status\"");

    // what the cleanup button sends is queued for the agent, and a checkbox turned back on saves as true
    HttpResponse<Buffer> cleanup = server.post("/api/v1/agents/" + id + "/cleanup", new JsonObject().put("model_path", ""));
    assertThat(cleanup.statusCode()).isEqualTo(202);
    assertThat(cleanup.bodyAsJsonObject().getBoolean("queued")).isTrue();
    assertThat(server.put("/api/v1/agents/" + id + "/settings", null, new JsonObject().put("auto_cleanup", true))
        .statusCode()).isEqualTo(200);
    assertThat(tag(page("/agents/" + id), "name=\"auto_cleanup\"")).contains("checked");
  }

  @Test
  void agentWithoutHeartbeatSaysStorageIsNotReportedYet() {
    servers.start();
    String id = registerAgent("fresh-box");
    assertThat(text(section(page("/agents/" + id), "storage-card"), "id=\"storage-free\"")).isEqualTo("not reported yet");
  }

  @Test
  void unknownAgentIsA404Page() {
    TestServer server = servers.start();
    HttpResponse<Buffer> response = server.get("/agents/no-such-agent");
    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.getHeader("Content-Type")).startsWith("text/html");
    assertThat(response.bodyAsString()).contains("Not found", "no-such-agent").doesNotContain("settings-card");
  }

  @Test
  void hostileAgentNameIsEscapedInTheListAndTheCards() {
    TestServer server = servers.start();
    String hostile = "<img src=x onerror=alert(1)>\"'";
    String id = registerAgent(hostile);
    // kitt_image must be an image reference now; a path setting still takes any printable text
    assertThat(server.put("/api/v1/agents/" + id + "/settings", null,
        new JsonObject().put("kitt_image", "\"><script>alert(2)</script>")).statusCode()).isEqualTo(400);
    assertThat(server.put("/api/v1/agents/" + id + "/settings", null,
        new JsonObject().put("model_share_mount", "/mnt/\"><script>alert(2)</script>")).statusCode()).isEqualTo(200);
    for (String path : new String[] {"/agents", "/agents/" + id}) {
      String html = page(path);
      assertThat(html).as(path).doesNotContain("<img src=x", "<script>alert(2)</script>")
          .contains("&lt;img src=x onerror=alert(1)&gt;");
    }
    assertThat(tag(page("/agents/" + id), "name=\"model_share_mount\""))
        .contains("value=\"/mnt/&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;\"");
  }

  // --- global settings ---

  @Test
  void settingsPageShowsEachEffectiveValueWithItsSource() {
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", "/env/models"));

    String html = page("/settings");

    assertThat(html).contains("<form id=\"global-settings\"", "id=\"settings-save\"", "id=\"settings-status\"",
        "<script src=\"/static/settings.js\" defer></script>");
    for (String key : new String[] {"model_dir", "catalog_url", "results_dir"}) {
      assertThat(html).as(key).contains("id=\"setting-" + key + "\"", "data-clear=\"" + key + "\"");
    }
    assertThat(text(html, "data-effective=\"model_dir\"")).isEqualTo("/env/models");
    assertThat(text(html, "data-source=\"model_dir\"")).isEqualTo("environment");
    assertThat(text(html, "data-effective=\"catalog_url\"")).isEmpty();
    assertThat(text(html, "data-source=\"catalog_url\"")).isEqualTo("unset");
    assertThat(text(html, "data-effective=\"results_dir\"")).isEqualTo(servers.results().toString());
    assertThat(text(html, "data-source=\"results_dir\"")).isEqualTo("flag");
    // the inputs hold only what the database overrides, so saving never copies a fallback into it
    assertThat(tag(html, "id=\"setting-model_dir\"")).contains("value=\"\"", "placeholder=\"/env/models\"");
  }

  @Test
  void savedSettingShowsAsDatabaseAndClearingRevertsToTheEnvironment() {
    TestServer server = servers.start(new TestServer.Options().env("SVC_MODEL_DIR", "/env/models"));
    assertThat(server.put("/api/v1/settings", null, new JsonObject().put("model_dir", "/db/models")
        .put("catalog_url", "https://catalog.lab:8000")).statusCode()).isEqualTo(200);

    String saved = page("/settings");
    assertThat(tag(saved, "id=\"setting-model_dir\"")).contains("value=\"/db/models\"", "data-saved=\"/db/models\"");
    assertThat(text(saved, "data-effective=\"model_dir\"")).isEqualTo("/db/models");
    assertThat(text(saved, "data-source=\"model_dir\"")).isEqualTo("database");
    assertThat(text(saved, "data-effective=\"catalog_url\"")).isEqualTo("https://catalog.lab:8000");

    // the Clear button sends null, an emptied field sends "": both revert
    assertThat(server.put("/api/v1/settings", null, new JsonObject().putNull("model_dir")).statusCode()).isEqualTo(200);
    assertThat(server.put("/api/v1/settings", null, new JsonObject().put("catalog_url", "")).statusCode()).isEqualTo(200);
    String cleared = page("/settings");
    assertThat(text(cleared, "data-effective=\"model_dir\"")).isEqualTo("/env/models");
    assertThat(text(cleared, "data-source=\"model_dir\"")).isEqualTo("environment");
    assertThat(tag(cleared, "id=\"setting-model_dir\"")).contains("value=\"\"");
    assertThat(text(cleared, "data-source=\"catalog_url\"")).isEqualTo("unset");
  }

  @Test
  void hostileSettingValueIsEscaped() {
    TestServer server = servers.start();
    assertThat(server.put("/api/v1/settings", null, new JsonObject().put("model_dir", "/tmp/\"><script>alert(1)</script>"))
        .statusCode()).isEqualTo(200);
    String html = page("/settings");
    assertThat(html).doesNotContain("<script>alert(1)</script>")
        .contains("value=\"/tmp/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\"");
  }

  // --- models ---

  private Path writeManifest(JsonArray models) throws IOException {
    Path dir = Files.createDirectories(servers.dir().resolve("models"));
    Files.writeString(dir.resolve("manifest.json"), new JsonObject().put("models", models).encode());
    return dir;
  }

  @Test
  void modelsPageListsTheManifestWithFormatBadgesAndSizes() throws IOException {
    Path dir = writeManifest(new JsonArray()
        .add(new JsonObject().put("model_id", "llama-3-8b").put("path", "/remote/llama-3-8b")
            .put("formats", new JsonArray().add("safetensors").add("pytorch")).put("size_bytes", 16_000_000_000L))
        .add(new JsonObject().put("model_id", "qwen2-7b-q4").put("path", "gguf/qwen2-7b-q4.gguf").put("size_bytes", 4_370_000_000L))
        .add(new JsonObject().put("model_id", "tiny").put("path", "/remote/tiny")));
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", dir.toString()));

    String html = page("/models");

    assertThat(html).contains("<table class=\"table\" id=\"models\">", "id=\"model-filter\"",
        "<script src=\"/static/models.js\" defer></script>");
    String llama = row(html, "/remote/llama-3-8b");
    assertThat(llama).contains("llama-3-8b", "<span class=\"badge badge-format\">safetensors</span>",
        "<span class=\"badge badge-format\">pytorch</span>", "16.0 GB", "local");
    String qwen = row(html, dir.resolve("gguf/qwen2-7b-q4.gguf").toString());
    assertThat(qwen).contains("qwen2-7b-q4", "<span class=\"badge badge-format\">gguf</span>", "4.4 GB");
    assertThat(row(html, "/remote/tiny")).contains("tiny").doesNotContain("badge-format");
    assertThat(html).contains("3 models").doesNotContain("class=\"note\"");
    // no catalog URL yet: the inline form sets it
    assertThat(html).contains("<form id=\"catalog-url-form\"", "id=\"catalog-url\"");

    String filtered = page("/models?q=QWEN");
    assertThat(filtered).contains("data-model-path=\"" + dir.resolve("gguf/qwen2-7b-q4.gguf") + "\"")
        .doesNotContain("data-model-path=\"/remote/llama-3-8b\"").contains("1 model matching");
    assertThat(tag(filtered, "id=\"model-filter\"")).contains("value=\"QWEN\"");
  }

  @Test
  void missingManifestIsShownAsANote() {
    Path empty = servers.dir().resolve("empty-models");
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", empty.toString()));
    String html = page("/models");
    assertThat(html).contains("<li class=\"note\">No manifest.json in " + empty + "</li>", "No models listed.");
  }

  @Test
  void modelsPageMergesTheCatalogServiceOnceItsUrlIsSet() throws IOException {
    Path dir = writeManifest(new JsonArray().add(new JsonObject().put("model_id", "local-one").put("path", "/m/local-one")));
    JsonArray remote = new JsonArray().add(new JsonObject().put("model_id", "remote-one").put("path", "/share/remote-one")
        .put("formats", new JsonArray().add("gguf")).put("size_bytes", 2_500_000L));
    Vertx catalogVertx = Vertx.vertx();
    try {
      HttpServer catalog = catalogVertx.createHttpServer().requestHandler(req -> {
        if (req.path().equals("/manifest.json")) {
          req.response().putHeader("Content-Type", "application/json").end(remote.encode());
        } else {
          req.response().setStatusCode(404).end();
        }
      }).listen(0, "127.0.0.1").await();
      TestServer server = servers.start(new TestServer.Options().env("SVC_MODEL_DIR", dir.toString()));
      assertThat(page("/models")).contains("id=\"catalog-url-form\"").doesNotContain("remote-one");

      // what the inline form sends
      HttpResponse<Buffer> set = server.put("/api/v1/settings", null,
          new JsonObject().put("catalog_url", "http://127.0.0.1:" + catalog.actualPort()));
      assertThat(set.statusCode()).isEqualTo(200);

      String html = page("/models");
      assertThat(html).doesNotContain("catalog-url-form").contains("id=\"catalog-url-value\"");
      assertThat(row(html, "/share/remote-one"))
          .contains("remote-one", "<span class=\"badge badge-format\">gguf</span>", "2.5 MB", "catalog");
      assertThat(row(html, "/m/local-one")).contains("local-one", "local");
    } finally {
      catalogVertx.close().await();
    }
  }

  @Test
  void unreachableCatalogServiceIsANoteNotAnError() {
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", servers.dir().resolve("none").toString())
        .env("CATALOG_URL", "http://127.0.0.1:9/catalog"));
    String html = page("/models");
    assertThat(html).contains("class=\"note\">Catalog service http://127.0.0.1:9/catalog/manifest.json unreachable")
        .doesNotContain("catalog-url-form");
  }

  @Test
  void longCatalogsArePaginated() throws IOException {
    JsonArray models = new JsonArray();
    for (int i = 0; i < ModelsPage.PER_PAGE + 5; i++) {
      models.add(new JsonObject().put("model_id", String.format("m-%03d", i)).put("path", String.format("/m/m-%03d", i)));
    }
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", writeManifest(models).toString()));

    String first = page("/models");
    assertThat(first).contains("<nav class=\"pager\"", "rel=\"next\" href=\"/models?q=&amp;page=2\"")
        .doesNotContain("rel=\"prev\"").contains("data-model-path=\"/m/m-000\"").doesNotContain("data-model-path=\"/m/m-050\"");
    String second = page("/models?page=2");
    assertThat(second).contains("rel=\"prev\" href=\"/models?q=&amp;page=1\"", "data-model-path=\"/m/m-054\"")
        .doesNotContain("rel=\"next\"").doesNotContain("data-model-path=\"/m/m-000\"");
  }

  @Test
  void undecodableOrOutOfRangeQueryStillRendersTheModelsPage() throws IOException {
    Path dir = writeManifest(new JsonArray().add(new JsonObject().put("model_id", "only").put("path", "/m/only")));
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", dir.toString()));
    for (String query : new String[] {"?q=%zz&page=%zz", "?page=999", "?page=-1", "?page=abc"}) {
      assertThat(page("/models" + query)).as(query).contains("data-model-path=\"/m/only\"");
    }
  }

  @Test
  void hostileModelNamesAreEscaped() throws IOException {
    Path dir = writeManifest(new JsonArray().add(new JsonObject().put("model_id", "<script>alert(1)</script>")
        .put("path", "/m/\"><img src=x onerror=alert(2)>")));
    servers.start(new TestServer.Options().env("SVC_MODEL_DIR", dir.toString()));
    String html = page("/models?q=" + java.net.URLEncoder.encode("<script>", java.nio.charset.StandardCharsets.UTF_8));
    assertThat(html).doesNotContain("<script>alert(1)</script>", "<img src=x")
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;", "data-model-path=\"/m/&quot;&gt;&lt;img src=x onerror=alert(2)&gt;\"");
  }

  @Test
  void pageScriptsAreServed() {
    TestServer server = servers.start();
    for (String script : new String[] {"agent-admin.js", "settings.js", "models.js"}) {
      HttpResponse<Buffer> js = server.get("/static/" + script);
      assertThat(js.statusCode()).as(script).isEqualTo(200);
      assertThat(js.getHeader("Content-Type")).as(script).contains("javascript");
      assertThat(js.bodyAsString()).as(script).contains("window.svc");
    }
  }

  /** The table row of the model with the given path. */
  private static String row(String html, String path) {
    int at = html.indexOf("data-model-path=\"" + path + "\"");
    assertThat(at).as("row of " + path).isNotNegative();
    return html.substring(at, html.indexOf("</tr>", at));
  }
}
