package dev.svc.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.EventWaiter;
import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.WebElement;

/**
 * The buttons that act on a run, in headless Chromium: cancel on the quick test page, cancel and
 * launch on the campaign page, each once accepted and (where the API has a real refusal) once
 * refused. The test agent pauses ten minutes before each simulated log line, so whatever a test
 * starts is still running when the test acts on it.
 */
class RunActionsBrowserTest {

  private static final long PAUSE_MS = Duration.ofMinutes(10).toMillis();
  private static final Duration RUN = Duration.ofSeconds(30);
  private static final String CANCELLED = "Cancelled by user";

  @TempDir
  Path temp;

  private TestServer server;
  private Browser browser;
  private String agent;
  private String model;

  @BeforeEach
  void start() {
    Path models = SiteData.modelDirectory(temp.resolve("models"));
    model = models.resolve(SiteData.SAFETENSORS_MODEL).toString();
    server = TestServer.start(temp.resolve("home"), new TestServer.Options().resultsDir(temp.resolve("results"))
        .env("SVC_MODEL_DIR", models.toString()).timings(Timings.defaults().withSimulatorDelays(PAUSE_MS, PAUSE_MS)));
    agent = SiteData.testAgent(server, null, "sim-h100", "x86_64");
    browser = Browser.open(server);
  }

  @AfterEach
  void stop() {
    Browser.finish(browser, server);
  }

  @Test
  void cancellingARunningQuickTestShowsItFailedAndRemovesTheButton() {
    String id = SiteData.quickTestUntil(server, null, agent, model, "vllm", "running");
    browser.open("/quicktest/" + id);
    assertThat(browser.text("#test-status")).isEqualTo("running");
    String mark = browser.markPage();

    browser.find("button#cancel").click();
    browser.waitFor("the badge to show failed", d -> browser.text("#test-status").equals("failed"));
    browser.waitFor("the cancel button to go", d -> browser.all("#cancel").isEmpty());
    browser.waitFor("the details to say why it failed", d -> browser.text("#test-error").equals(CANCELLED));
    assertThat(browser.find("#test-status").getAttribute("class")).contains("status-failed");
    assertThat(browser.visible("#cancel-error")).as("no error shown").isEmpty();
    assertThat(browser.samePage(mark)).as("the page was not reloaded").isTrue();
    JsonObject test = server.get("/api/v1/quicktest/" + id).bodyAsJsonObject();
    assertThat(test.getString("status")).isEqualTo("failed");
    assertThat(test.getString("error")).isEqualTo(CANCELLED);
    browser.checkPage("quicktest-cancelled");
  }

  @Test
  void aCancelTheApiRefusesIsShownAndTheButtonWorksAgain() {
    String id = SiteData.quickTestUntil(server, null, agent, model, "vllm", "running");
    // with its live stream cut (a lost connection) the page cannot learn that the test ended elsewhere
    browser.blockRequests("*/api/v1/events/stream/*");
    int before = browser.network().size();
    browser.open("/quicktest/" + id);
    browser.waitFor("the page's stream to fail", d -> PageChecks.streams(browser, before).stream()
        .anyMatch(r -> r.failure != null));
    HttpResponse<Buffer> cancelled = cancel(id);
    assertThat(cancelled.statusCode()).as(cancelled.bodyAsString()).isEqualTo(200);
    assertThat(browser.text("#test-status")).as("the page still shows").isEqualTo("running");

    browser.find("button#cancel").click();
    WebElement error = browser.waitVisible("#cancel-error");
    HttpResponse<Buffer> refused = cancel(id);
    assertThat(refused.statusCode()).as(refused.bodyAsString()).isEqualTo(409);
    String message = refused.bodyAsJsonObject().getString("error");
    assertThat(message).isEqualTo("Quick test " + id + " is already failed");
    assertThat(error.getText()).isEqualTo("Could not cancel: " + message);
    browser.waitFor("the cancel button to be enabled again", d -> browser.find("button#cancel").isEnabled());
    assertThat(browser.network().since(before)).as("the page's cancel request")
        .anyMatch(r -> r.method.equals("POST") && r.url.endsWith("/api/v1/quicktest/" + id + "/cancel")
            && Integer.valueOf(409).equals(r.status));
    browser.checkLayout("quicktest-cancel-refused");

    browser.blockRequests();
    browser.ignoreConsoleSoFar(); // the refused cancel (409) and the cut stream are reported on the console
    browser.open("/quicktest/" + id);
    assertThat(browser.text("#test-status")).isEqualTo("failed");
    assertThat(browser.all("#cancel")).as("no cancel button on a finished test").isEmpty();
    assertThat(browser.text("#test-error")).isEqualTo(CANCELLED);
    browser.assertConsoleClean("the quick test page once reloaded");
  }

  @Test
  void cancellingARunningCampaignShowsItCancelledAndRemovesTheButton() {
    String id = SiteData.draftCampaign(server, null, agent, "vllm", model);
    try (EventWaiter events = EventWaiter.everything(server.vertx())) {
      SiteData.launchCampaignUntil(server, null, id, "running");
      events.next(RunActionsBrowserTest::aRunStarted, RUN);
    }
    browser.open("/campaigns/" + id);
    assertThat(browser.text("#campaign-status")).isEqualTo("running");
    assertThat(rowStatuses()).as("its one run").containsExactly("running");
    assertThat(browser.all("#launch-campaign")).as("no launch button while it runs").isEmpty();
    String mark = browser.markPage();

    browser.find("button#cancel").click();
    browser.waitFor("the badge to show cancelled", d -> browser.text("#campaign-status").equals("cancelled"));
    browser.waitFor("the cancel button to go", d -> browser.all("#cancel").isEmpty());
    browser.waitFor("the run's row to show it failed", d -> rowStatuses().equals(List.of("failed")));
    assertThat(browser.text("#campaign-rows .row-error")).isEqualTo(CANCELLED);
    assertThat(browser.visible("#action-error")).as("no error shown").isEmpty();
    assertThat(browser.samePage(mark)).as("the page was not reloaded").isTrue();
    JsonObject campaign = server.get("/api/v1/campaigns/" + id).bodyAsJsonObject();
    assertThat(campaign.getString("status")).isEqualTo("cancelled");
    JsonObject run = campaign.getJsonArray("quick_tests").getJsonObject(0);
    assertThat(run.getString("status")).isEqualTo("failed");
    assertThat(run.getString("error")).isEqualTo(CANCELLED);
    browser.checkPage("campaign-cancelled");

    browser.driver().navigate().refresh();
    browser.waitLoaded();
    assertThat(browser.text("#campaign-status")).isEqualTo("cancelled");
    assertThat(browser.text("#launch-campaign")).as("a cancelled campaign can be launched again").isEqualTo("Launch again");
  }

  @Test
  void launchingADraftCampaignReloadsThePageShowingItRunning() {
    String id = SiteData.draftCampaign(server, null, agent, "vllm", model);
    browser.open("/campaigns/" + id);
    assertThat(browser.text("#campaign-status")).isEqualTo("draft");
    assertThat(browser.text("#launch-campaign")).isEqualTo("Launch");
    assertThat(browser.all("#cancel")).as("no cancel button on a draft").isEmpty();
    browser.checkPage("campaign-draft");
    String mark = browser.markPage();

    browser.find("button#launch-campaign").click();
    browser.waitFor("the page to reload", d -> !browser.samePage(mark));
    browser.waitLoaded();
    browser.waitFor("the badge to show running", RUN, d -> browser.text("#campaign-status").equals("running"));
    assertThat(browser.all("#launch-campaign")).as("no launch button once launched").isEmpty();
    assertThat(browser.visible("button#cancel")).as("a launched campaign can be cancelled").hasSize(1);
    assertThat(server.get("/api/v1/campaigns/" + id).bodyAsJsonObject().getString("status")).isEqualTo("running");
    browser.checkPage("campaign-launched");
  }

  @Test
  void aLaunchTheApiRefusesIsShownAndTheButtonWorksAgain() {
    String id = SiteData.draftCampaign(server, null, agent, "vllm", model);
    browser.open("/campaigns/" + id);
    // a draft's page has no live stream: it shows the draft until reloaded, while the API launches it
    SiteData.launchCampaignUntil(server, null, id, "running");
    assertThat(browser.text("#campaign-status")).as("the page still shows").isEqualTo("draft");
    String mark = browser.markPage();

    browser.find("button#launch-campaign").click();
    WebElement error = browser.waitVisible("#action-error");
    HttpResponse<Buffer> refused = server.post("/api/v1/campaigns/" + id + "/launch", new JsonObject());
    assertThat(refused.statusCode()).as(refused.bodyAsString()).isEqualTo(409);
    String message = refused.bodyAsJsonObject().getString("error");
    assertThat(message).isEqualTo("Campaign " + id + " is running and cannot become queued");
    assertThat(error.getText()).isEqualTo(message);
    browser.waitFor("the launch button to be enabled again", d -> browser.find("button#launch-campaign").isEnabled());
    assertThat(browser.samePage(mark)).as("a refused launch does not reload the page").isTrue();
    assertThat(server.get("/api/v1/campaigns/" + id).bodyAsJsonObject().getString("status")).isEqualTo("running");
    browser.ignoreConsoleSoFar(); // the refused launch answers 409, which the console reports
    browser.checkPage("campaign-launch-refused");
  }

  /** A quick test's status event saying it runs (a campaign's own status events carry no test_id). */
  private static boolean aRunStarted(JsonObject event) {
    JsonObject data = event.getJsonObject("data", new JsonObject());
    return "status".equals(event.getString("type")) && data.containsKey("test_id")
        && "running".equals(data.getString("status"));
  }

  private HttpResponse<Buffer> cancel(String testId) {
    return server.post("/api/v1/quicktest/" + testId + "/cancel", new JsonObject());
  }

  private List<String> rowStatuses() {
    @SuppressWarnings("unchecked")
    List<String> statuses = (List<String>) browser.js("return Array.from(document.querySelectorAll("
        + "'#campaign-rows [data-field=status] .status')).map(function (s) { return s.textContent.trim(); });");
    return statuses;
  }
}
