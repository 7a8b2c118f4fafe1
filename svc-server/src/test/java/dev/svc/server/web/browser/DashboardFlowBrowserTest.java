package dev.svc.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.tls.Fingerprint;
import dev.svc.core.tls.Pem;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * Issue 4's acceptance in headless Chromium, through the pages only (the DOM contract's hooks):
 * create test agents → new quick test (fuzzy model search, engines filtered by architecture, the
 * format block and its override) → live log and final status without reload → the result's charts
 * → the campaign wizard → the campaign's live log → a settings change that persists, then clearing
 * it. (Every page at both widths is DashboardBrowserTest's; the login gate is LoginBrowserTest's.)
 */
class DashboardFlowBrowserTest {

  private static final String ID = "[0-9a-f]{16}";
  private static final Duration RUN = Duration.ofSeconds(90);

  @TempDir
  Path temp;

  private TestServer server;
  private Browser browser;
  private Path models;

  private void start(TestServer.Options options) {
    models = SiteData.modelDirectory(temp.resolve("models"));
    server = TestServer.start(temp.resolve("home"), options.resultsDir(temp.resolve("results"))
        .env("SVC_MODEL_DIR", models.toString()));
  }

  @AfterEach
  void stop() {
    Browser.finish(browser, server);
  }

  @Test
  void aQuickTestACampaignAndASettingThroughThePages() {
    // log lines 0.25-0.45 s apart: a run takes seconds, and lines visibly arrive one after another
    start(new TestServer.Options().timings(Timings.defaults().withSimulatorDelays(250, 450)));
    browser = Browser.open(server);

    String x86 = createTestAgent("e2e-x86", "x86_64");
    browser.checkPage("flow-agent");
    String arm = createTestAgent("e2e-arm", "arm64");

    String testId = newQuickTest(x86, arm);
    String resultId = watchQuickTest(testId);
    resultCharts(resultId);
    String campaignId = campaignWizard(x86, arm);
    watchCampaign(campaignId);
    settings();
  }

  /**
   * Enrolling a GPU host on a server with a global token, logged in: the name is checked, the agent
   * provisioned, its token and the three commands shown once (this server's URL, the token, the
   * name, the CA fingerprint `svc web` printed); the agent is listed as provisioned, the shown token
   * registers it (its row turns online live), and a name already taken is refused in the field.
   */
  @Test
  void enrolAGpuHostThroughTheAgentsPage() {
    String globalToken = "enrol-e2e-global-token-7d3a";
    start(new TestServer.Options().authToken(globalToken));
    browser = Browser.open(server);
    PageChecks.login(browser, globalToken);
    browser.open("/agents");
    browser.waitVisible("form#enrol-agent");
    assertThat(browser.visible("#enrol-result")).as("no token before one is issued").isEmpty();

    browser.find("form#enrol-agent [type=submit]").click();
    String empty = browser.waitFor("the empty name refused", d -> nonEmpty(enrolNameError()));
    assertThat(empty).isEqualTo("Name is required.");
    assertThat(browser.find("form#enrol-agent [name=name]").getAttribute("aria-invalid")).isEqualTo("true");

    browser.find("form#enrol-agent [name=name]").sendKeys("gpu-host-1");
    browser.find("form#enrol-agent [type=submit]").click();
    browser.waitVisible("#enrol-result");
    assertThat(enrolNameError()).isEmpty();
    String token = browser.find("#enrol-token").getAttribute("value");
    assertThat(token).isNotBlank();
    assertThat(browser.find("#enrol-token").getAttribute("readonly")).isNotNull();
    String fingerprint = Fingerprint.sha256(Pem.readCertificate(server.home().certs().resolve("ca.pem")));
    List<String> commands = List.of(browser.text("#enrol-commands").split("\n"));
    assertThat(commands).hasSize(4);
    // the token is read from the terminal, never put on a command line (shell history, ps)
    assertThat(commands.get(0)).isEqualTo("read -rsp 'Agent token: ' SVC_AGENT_TOKEN && echo && export SVC_AGENT_TOKEN");
    assertThat(commands.get(1)).startsWith("svc-agent init --server " + browser.origin() + " ")
        .contains("--name gpu-host-1", "--ca-fingerprint " + fingerprint).doesNotContain("--token");
    assertThat(String.join("\n", commands)).doesNotContain(token);
    assertThat(commands.subList(2, 4)).containsExactly("svc-agent preflight", "svc-agent start");
    assertThat(browser.text("#enrol-agent-card")).contains("shown only this once");

    // the agent is in the API and, without a reload, in the table as provisioned
    JsonArray agents = server.get("/api/v1/agents", globalToken).bodyAsJsonArray();
    JsonObject agent = agents.stream().map(JsonObject.class::cast).filter(a -> "gpu-host-1".equals(a.getString("name")))
        .findFirst().orElseThrow(() -> new AssertionError("gpu-host-1 not in " + agents));
    assertThat(agent.getString("status")).isEqualTo("provisioned");
    assertThat(token).startsWith(agent.getString("token_prefix"));
    String row = "table#agents tr[data-agent-id='" + agent.getString("id") + "']";
    assertThat(browser.text(row + " [data-field=status]")).isEqualTo("provisioned");
    browser.checkPage("agents-enrolled");

    // the token shown is the one the server issued: the host registers with it, and its row goes online
    JsonObject registration = new JsonObject().put("name", "gpu-host-1").put("hostname", "gpu-host-1.lab");
    assertThat(TestServer.send(server.agentClient("gpu-host-1"), HttpMethod.POST, "/api/v1/agents/register", token,
        registration).statusCode()).isEqualTo(201);
    browser.waitFor("the row of gpu-host-1 to turn online", d -> browser.text(row + " [data-field=status]").equals("online"));

    // a name already taken: the server's 409 in the field, and no second token
    browser.find("form#enrol-agent [name=name]").sendKeys("gpu-host-1");
    browser.find("form#enrol-agent [type=submit]").click();
    String taken = browser.waitFor("the taken name refused", d -> nonEmpty(enrolNameError()));
    assertThat(taken).isEqualTo("An agent named 'gpu-host-1' already exists");
    assertThat(browser.find("#enrol-token").getAttribute("value")).isEqualTo(token);
    assertThat(browser.all("table#agents tr[data-agent-id]")).hasSize(1);
    browser.ignoreConsoleSoFar(); // the refused request answers 409, which the console reports
    browser.checkLayout("agents-enrol-refused");
  }

  private String enrolNameError() {
    return browser.text("form#enrol-agent .field-error[data-error-for=name]");
  }

  private static String nonEmpty(String text) {
    return text.isEmpty() ? null : text;
  }

  /** Fills the agents page's "Create test agent" form and returns the id of the agent page it leads to. */
  private String createTestAgent(String name, String arch) {
    browser.open("/agents");
    browser.waitVisible("form#create-test-agent");
    field("name").sendKeys(name);
    retype(field("gpu_info"), "NVIDIA H100 80GB HBM3");
    retype(field("gpu_count"), "2");
    retype(field("cpu_info"), arch.equals("arm64") ? "NVIDIA Grace" : "AMD EPYC 9654");
    new Select(field("cpu_arch")).selectByValue(arch);
    retype(field("ram_gb"), "512");
    WebElement environment = field("environment_type");
    if (environment.getTagName().equals("select")) {
      new Select(environment).selectByIndex(0);
    } else {
      retype(environment, "native_linux");
    }
    browser.find("form#create-test-agent [type=submit]").click();
    String path = browser.waitFor("the new agent's page", d -> browser.path().matches("/agents/" + ID) ? browser.path() : null);
    browser.waitLoaded();
    assertThat(browser.find("main").getText()).contains(name, "2 × NVIDIA H100 80GB HBM3");
    return path.substring("/agents/".length());
  }

  private WebElement field(String name) {
    return browser.find("form#create-test-agent [name=" + name + "]");
  }

  /** Replaces an input's text as a user would (select all, type), so input events fire. */
  private static void retype(WebElement input, String text) {
    input.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
    input.sendKeys(text);
  }

  /** /quicktest/new: fuzzy model search, engines by architecture, the format block, force, launch. */
  private String newQuickTest(String x86, String arm) {
    browser.open("/quicktest/new");
    browser.waitVisible("form#quicktest-form");
    Select agent = new Select(browser.find("select#agent"));
    agent.selectByValue(x86);
    assertThat(agent.getFirstSelectedOption().getAttribute("data-arch")).as("data-arch of the x86 agent")
        .isIn("x86_64", "amd64");

    browser.waitFor("the catalog's four models in the list", d -> browser.all("ul#model-options li[data-path]").size() == 4);
    WebElement search = browser.find("input#model-search");
    retype(search, "istral-7b");
    List<WebElement> shown = browser.waitFor("the list to narrow to one model", d -> {
      List<WebElement> visible = browser.visible("ul#model-options li[data-path]");
      return visible.size() == 1 ? visible : null;
    });
    assertThat(shown.get(0).getAttribute("data-path")).endsWith(SiteData.SAFETENSORS_MODEL);
    shown.get(0).click();
    assertThat(browser.find("input#model-path").getAttribute("value")).isEqualTo(models.resolve(SiteData.SAFETENSORS_MODEL).toString());
    browser.checkPage("flow-quicktest-new");

    assertThat(engineShown("tgi")).as("tgi on x86_64").isTrue();
    assertThat(browser.all("#engines .badge-format")).extracting(WebElement::getText)
        .anyMatch(t -> t.contains("gguf")).anyMatch(t -> t.contains("safetensors"));
    agent.selectByValue(arm);
    browser.waitFor("tgi to leave the engine list on arm64", d -> !engineShown("tgi"));
    assertThat(engineShown("vllm")).as("vllm on arm64").isTrue();
    assertThat(engineShown("llama_cpp")).as("llama_cpp on arm64").isTrue();
    agent.selectByValue(x86);
    browser.waitFor("tgi to come back on x86_64", d -> engineShown("tgi"));

    retype(search, "llama-3");
    WebElement gguf = browser.waitFor("the gguf model alone in the list", d -> {
      List<WebElement> visible = browser.visible("ul#model-options li[data-path]");
      return visible.size() == 1 && visible.get(0).getAttribute("data-path").endsWith(".gguf") ? visible.get(0) : null;
    });
    gguf.click();
    browser.find("#engines input[name=engine_name][value=vllm]").click();
    browser.waitFor("the format block naming vllm's formats", d -> {
      String message = browser.find("#compat-message").getText().toLowerCase(java.util.Locale.ROOT);
      return message.contains("safetensors") && message.contains("pytorch") && !browser.find("button#launch").isEnabled();
    });
    browser.checkPage("flow-quicktest-blocked");
    browser.find("input#force[type=checkbox]").click();
    browser.waitFor("force to enable the launch button", d -> browser.find("button#launch").isEnabled());
    new Select(browser.find("select#benchmark")).selectByValue("throughput");
    browser.find("button#launch").click();
    String path = browser.waitFor("the quick test's page", d -> browser.path().matches("/quicktest/" + ID) ? browser.path() : null);
    String testId = path.substring("/quicktest/".length());
    JsonObject test = server.get("/api/v1/quicktest/" + testId).bodyAsJsonObject();
    assertThat(test.getString("model_path")).isEqualTo(models.resolve(SiteData.GGUF_MODEL).toString());
    assertThat(test.getString("engine_name")).isEqualTo("vllm");
    assertThat(test.getBoolean("force")).isTrue();
    assertThat(test.getString("agent_id")).isEqualTo(x86);
    return testId;
  }

  private boolean engineShown(String engine) {
    return !browser.visible("#engines input[name=engine_name][value=" + engine + "]").isEmpty();
  }

  /** The detail page shows lines arriving and then `completed` and the result link, all without reload. */
  private String watchQuickTest(String testId) {
    browser.waitLoaded();
    String mark = browser.markPage();
    liveLog("#test-status", "quick test " + testId, mark);
    browser.waitFor("status completed", RUN, d -> statusText("#test-status").equals("completed"));
    // the page refreshes its result card a few times after the end: read the link inside the wait
    String href = browser.waitFor("a#result-link", d -> browser.visible("a#result-link").stream().findFirst()
        .map(a -> a.getAttribute("href")).orElse(null));
    assertThat(browser.samePage(mark)).as("the page was never reloaded").isTrue();
    assertThat(browser.find("#test-status").getAttribute("class")).contains("status-completed");
    String resultId = server.get("/api/v1/quicktest/" + testId).bodyAsJsonObject().getString("result_id");
    assertThat(href).isEqualTo(browser.origin() + "/results/" + resultId);
    int stored = server.get("/api/v1/quicktest/" + testId + "/logs").bodyAsJsonObject().getJsonArray("lines").size();
    browser.waitFor("every stored line shown once (" + stored + ")", d -> browser.all("#log .line").size() == stored);
    browser.checkPage("flow-quicktest-detail");
    browser.driver().navigate().refresh();
    browser.waitLoaded();
    browser.waitFor("the stored lines after a reload", d -> browser.all("#log .line").size() == stored);
    assertThat(statusText("#test-status")).isEqualTo("completed");
    browser.waitFor("the result link clicked", d -> browser.visible("a#result-link").stream().findFirst().map(a -> {
      a.click();
      return true;
    }).orElse(null));
    browser.waitFor("the result page", d -> browser.path().equals("/results/" + resultId));
    return resultId;
  }

  /**
   * Sees log lines arrive on the current page: some lines while the run is still active, then more,
   * on the same document.
   */
  private void liveLog(String statusCss, String what, String mark) {
    long first = browser.waitFor("the first log lines of " + what + " while it runs", RUN, d -> {
      long lines = browser.all("#log .line").size();
      String status = statusText(statusCss);
      return lines >= 1 && !status.equals("completed") && !status.equals("failed") ? lines : null;
    });
    browser.waitFor("more log lines of " + what + " to arrive live", RUN, d -> browser.all("#log .line").size() > first);
    assertThat(browser.samePage(mark)).as("lines arrived without a reload").isTrue();
  }

  private String statusText(String css) {
    return browser.text(css).toLowerCase(java.util.Locale.ROOT);
  }

  /** The result page's charts are drawn: non-zero canvases with painted pixels. */
  private void resultCharts(String resultId) {
    browser.waitLoaded();
    for (String chart : List.of("canvas#chart-latency", "canvas#chart-throughput", "canvas#chart-gpu-memory")) {
      browser.waitFor(chart + " to be drawn", d -> PageChecks.painted(browser, chart));
    }
    assertThat(browser.all("canvas.chart")).hasSizeGreaterThanOrEqualTo(3);
    assertThat(browser.find("section#formulas").getText()).as("formulas").isNotBlank().containsIgnoringCase("TTFT");
    for (String export : List.of("a#export-json", "a#export-csv")) {
      String href = browser.find(export).getAttribute("href");
      assertThat(href).startsWith(browser.origin());
      assertThat(server.get(href.substring(browser.origin().length())).statusCode()).as(export).isEqualTo(200);
    }
    browser.checkPage("flow-result");
    for (String chart : List.of("canvas#chart-latency", "canvas#chart-throughput", "canvas#chart-gpu-memory")) {
      browser.waitFor(chart + " to be drawn after the width changes", d -> PageChecks.painted(browser, chart));
    }
    assertThat(resultId).matches(ID);
  }

  /** /campaigns/new: agent, engines (platform warning on arm64), two models by search, review, create and launch. */
  private String campaignWizard(String x86, String arm) {
    browser.open("/campaigns/new");
    step(1);
    browser.find("input#campaign-name").sendKeys("e2e nightly");
    Select agent = new Select(browser.find("select#campaign-agent"));
    agent.selectByValue(arm);
    browser.checkPage("flow-campaign-new");
    browser.find("button#wizard-next").click();
    step(2);
    WebElement tgi = browser.find("input[type=checkbox][name=engines][value=tgi]");
    assertThat(tgi.isEnabled()).as("tgi cannot be chosen on arm64").isFalse();
    assertThat(browser.visible("section[data-step='2'] .platform-warning")).as("platform warning on arm64").isNotEmpty();
    assertThat(browser.all("section[data-step='2'] .badge-format")).isNotEmpty();
    browser.find("button#wizard-back").click();
    step(1);
    agent.selectByValue(x86);
    browser.find("button#wizard-next").click();
    step(2);
    browser.waitFor("tgi to be allowed on x86_64",
        d -> browser.find("input[type=checkbox][name=engines][value=tgi]").isEnabled());
    WebElement vllm = browser.find("input[type=checkbox][name=engines][value=vllm]");
    if (!vllm.isSelected()) {
      vllm.click();
    }
    browser.find("button#wizard-next").click();
    step(3);
    for (String model : List.of(SiteData.SAFETENSORS_MODEL, SiteData.SAFETENSORS_MODEL_2)) {
      retype(browser.find("input#campaign-model-search"), model);
      WebElement item = browser.waitFor("the list to narrow to " + model, d -> {
        List<WebElement> visible = browser.visible("ul#campaign-model-options li[data-path]");
        return visible.size() == 1 && visible.get(0).getAttribute("data-path").endsWith(model) ? visible.get(0) : null;
      });
      item.click();
    }
    browser.waitFor("two chosen models", d -> browser.all("ul#campaign-models li").size() == 2);
    browser.find("button#wizard-next").click();
    step(4);
    String matrix = browser.find("table#campaign-matrix").getText();
    assertThat(matrix).contains(SiteData.SAFETENSORS_MODEL, SiteData.SAFETENSORS_MODEL_2, "vllm");
    browser.checkPage("flow-campaign-review");
    browser.find("button#campaign-create-launch").click();
    String path = browser.waitFor("the campaign's page", d -> browser.path().matches("/campaigns/" + ID) ? browser.path() : null);
    String id = path.substring("/campaigns/".length());
    JsonObject campaign = server.get("/api/v1/campaigns/" + id).bodyAsJsonObject();
    assertThat(campaign.getString("agent_id")).isEqualTo(x86);
    assertThat(campaign.getInteger("total_runs")).isEqualTo(2);
    return id;
  }

  private void step(int n) {
    browser.waitVisible("section[data-step='" + n + "']");
    for (int other = 1; other <= 4; other++) {
      if (other != n) {
        assertThat(browser.visible("section[data-step='" + other + "']")).as("step %d hidden on step %d", other, n).isEmpty();
      }
    }
  }

  private void watchCampaign(String id) {
    browser.waitLoaded();
    String mark = browser.markPage();
    liveLog("#campaign-status", "campaign " + id, mark);
    browser.waitFor("campaign completed", RUN, d -> statusText("#campaign-status").equals("completed"));
    assertThat(browser.samePage(mark)).as("the page was never reloaded").isTrue();
    JsonObject campaign = server.get("/api/v1/campaigns/" + id).bodyAsJsonObject();
    assertThat(campaign.getString("status")).isEqualTo("completed");
    assertThat(campaign.getInteger("succeeded")).isEqualTo(2);
    int stored = server.get("/api/v1/campaigns/" + id + "/logs").bodyAsJsonObject().getJsonArray("lines").size();
    browser.waitFor("every stored campaign line on the page (" + stored + ")", d -> browser.all("#log .line").size() == stored);
    browser.checkPage("flow-campaign-detail");
    browser.driver().navigate().refresh();
    browser.waitLoaded();
    browser.waitFor("the stored campaign log after a reload", d -> browser.all("#log .line").size() == stored);
    assertThat(statusText("#campaign-status")).isEqualTo("completed");
    assertThat(browser.find("#campaign-progress").getText()).isNotBlank();
    assertThat(browser.all("table#campaign-rows tbody tr")).as("one row per run").hasSize(2);
  }

  /** /settings: a new model directory is saved, survives a reload and is what the API reports; clearing reverts it. */
  private void settings() {
    browser.open("/settings");
    String env = models.toString();
    effective(env, "environment");
    browser.checkPage("flow-settings");
    String other = SiteData.modelDirectory(temp.resolve("more-models")).toString();
    retype(browser.find("#setting-model_dir"), other);
    browser.find("button#settings-save").click();
    effective(other, "database");
    assertThat(browser.find("#settings-status").getText()).isNotBlank();
    browser.driver().navigate().refresh();
    browser.waitLoaded();
    effective(other, "database");
    apiSetting(other, "database");

    browser.find("button[data-clear='model_dir']").click();
    effective(env, "environment");
    apiSetting(env, "environment");
    browser.driver().navigate().refresh();
    browser.waitLoaded();
    effective(env, "environment");
  }

  private void effective(String value, String source) {
    browser.waitFor("model_dir " + value + " from " + source, d ->
        browser.find("[data-effective='model_dir']").getText().trim().equals(value)
            && browser.find("[data-source='model_dir']").getText().trim().equalsIgnoreCase(source));
  }

  private void apiSetting(String value, String source) {
    JsonObject modelDir = server.get("/api/v1/settings").bodyAsJsonObject().getJsonObject("model_dir");
    assertThat(modelDir.getString("value")).isEqualTo(value);
    assertThat(modelDir.getString("source")).isEqualTo(source);
  }
}
