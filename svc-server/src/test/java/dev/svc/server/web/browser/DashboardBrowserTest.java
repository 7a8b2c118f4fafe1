package dev.svc.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every page of the dashboard in headless Chromium against a real HTTPS server holding agents,
 * results and a campaign: usable at 1280 and 390 px (screenshots saved), no console error or CSP
 * violation, and no request to any origin but the server's during every test of the class.
 */
class DashboardBrowserTest {

  @TempDir
  static Path temp;

  private static TestServer server;
  private static Browser browser;
  private static Map<String, String> ids;

  @BeforeAll
  static void start() {
    Path models = SiteData.modelDirectory(temp.resolve("models"));
    server = TestServer.start(temp.resolve("home"), new TestServer.Options().resultsDir(temp.resolve("results"))
        .env("SVC_MODEL_DIR", models.toString()).timings(Timings.defaults().withSimulatorDelays(5, 15)));
    ids = SiteData.populate(server, null, models);
    browser = Browser.open(server);
  }

  @AfterAll
  static void stop() {
    Browser.finish(browser, server);
  }

  @Test
  void everyPageIsUsableAtBothWidthsWithoutConsoleErrorsOrCspViolations() throws IOException {
    PageChecks.everyPageAtEveryWidth(browser, DashboardPages.ALL, ids);
    for (DashboardPages.Page page : DashboardPages.ALL) {
      for (int width : Browser.WIDTHS) {
        Path shot = Browser.SCREENSHOTS.resolve(page.name() + "-" + width + ".png");
        assertThat(shot).as("screenshot").exists();
        assertThat(Files.size(shot)).as(shot.toString()).isGreaterThan(1000);
      }
    }
  }

  @Test
  void livePagesCloseTheirStreamWhenLeftAndReopenItWhenShownAgain() {
    PageChecks.leftPagesReleaseTheirStreams(browser, DashboardPages.ALL, ids);
    browser.open("/agents");
    int before = browser.network().size();
    browser.open("/");
    browser.driver().navigate().back();
    browser.waitFor("the agents page shown again to reopen its stream",
        d -> PageChecks.streams(browser, before).size() == 1);
  }

  @Test
  void theBrowserContactsNoOriginButTheServer() {
    int before = browser.network().size();
    for (DashboardPages.Page page : DashboardPages.ALL) {
      browser.open(page.pathWith(ids));
    }
    // the agents page subscribes to live status: wait until its EventSource request is on record
    browser.open("/agents");
    browser.waitFor("the agents page's EventSource request", d -> browser.network().since(before).stream()
        .anyMatch(r -> r.url.equals(browser.origin() + "/api/v1/events") && r.type.equals("EventSource")));
    List<NetworkLog.Request> requests = browser.network().since(before);
    List<String> paths = requests.stream().map(r -> r.url.substring(Math.min(r.url.length(),
        NetworkLog.origin(r.url).length()))).toList();
    assertThat(paths).as("what the pages loaded").contains("/", "/agents", "/static/app.js", "/static/app.css",
        "/api/v1/events").anyMatch(p -> p.startsWith("/static/vendor/htmx.org/"));
    assertThat(requests).filteredOn(r -> !r.url.startsWith("chrome://")).allSatisfy(r ->
        assertThat(NetworkLog.origin(r.url)).as(r.toString()).isIn(browser.origin(), "data:", "blob:", "about:"));
    browser.assertOnlyAllowedOrigins();
  }
}
