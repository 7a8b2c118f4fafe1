package dev.svc.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.Timings;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server started with --auth-token, in headless Chromium: every page needs the login form, and a
 * logged-in browser that visits another site cannot be made to change anything on the server.
 */
class LoginBrowserTest {

  static final String TOKEN = "e2e-secret-token-5f1c";

  @TempDir
  Path temp;

  private TestServer server;
  private Browser browser;
  private Map<String, String> ids;
  private Path models;

  @BeforeEach
  void start() {
    models = SiteData.modelDirectory(temp.resolve("models"));
    server = TestServer.start(temp.resolve("home"), new TestServer.Options().authToken(TOKEN)
        .resultsDir(temp.resolve("results")).env("SVC_MODEL_DIR", models.toString())
        .timings(Timings.defaults().withSimulatorDelays(5, 15)));
    ids = SiteData.populate(server, TOKEN, models);
    browser = Browser.open(server);
  }

  @AfterEach
  void stop() {
    Browser.finish(browser, server);
  }

  @Test
  void everyPageRedirectsToTheLoginPageUntilTheTokenIsEntered() {
    PageChecks.everyPageNeedsLogin(browser, TOKEN, DashboardPages.ALL, ids);
  }

  @Test
  void formsPostedFromAnotherSiteChangeNothing() {
    PageChecks.login(browser, TOKEN);
    assertThat(browser.path()).isEqualTo("/");
    String agents = browser.origin() + "/api/v1/agents/test";
    String settings = browser.origin() + "/api/v1/settings";
    try (CrossSiteOrigin attacker = CrossSiteOrigin.start(server.vertx(), server.home().certs())) {
      attacker.autoSubmittingForm("/agent-form", agents, "application/x-www-form-urlencoded", "name", "csrf-form");
      // a text/plain form body can carry JSON: {"name":"csrf-json","x":"="}
      attacker.autoSubmittingForm("/agent-json", agents, "text/plain", "{\"name\":\"csrf-json\",\"x\":\"", "\"}");
      attacker.autoSubmittingForm("/settings-json", settings, "text/plain",
          "{\"model_dir\":\"/tmp/csrf\",\"x\":\"", "\"}");
      attacker.autoSubmittingForm("/logout", browser.origin() + "/logout", "application/x-www-form-urlencoded",
          "x", "1");
      attacker.fetching("/agent-fetch", agents,
          "{method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{\"name\":\"csrf-fetch\"}'}");
      attacker.fetching("/settings-fetch", settings,
          "{method: 'PUT', headers: {'Content-Type': 'application/json'}, body: '{\"model_dir\":\"/tmp/csrf\"}'}");

      // localhost on another port is the same site: the SameSite=Strict cookie goes along and the
      // server's CSRF check must refuse; 127.0.0.1 is another site: the browser sends no cookie
      for (String host : List.of("localhost", "127.0.0.1")) {
        boolean sameSite = host.equals("localhost");
        browser.allowOrigin(attacker.url(host, ""));
        for (String[] attack : new String[][] {{"/agent-form", agents}, {"/agent-json", agents},
            {"/settings-json", settings}, {"/logout", browser.origin() + "/logout"}}) {
          int before = browser.network().size();
          browser.openUrl(attacker.url(host, attack[0]));
          browser.waitFor("the form of " + attack[0] + " to reach the server",
              d -> d.getCurrentUrl().equals(attack[1]));
          NetworkLog.Request post = answered(before, "POST", attack[1]);
          assertThat(post.status).as(host + attack[0] + " refused").isBetween(400, 499);
          if (!attack[0].startsWith("/settings")) {
            assertThat(post.status).as(host + attack[0] + " refused for the session").isIn(401, 403);
          }
          assertCookie(post, sameSite, host + attack[0]);
        }
        int before = browser.network().size();
        browser.openUrl(attacker.url(host, "/agent-fetch"));
        browser.waitFor("the cross-site fetch to settle", d -> !d.getTitle().equals("waiting"));
        NetworkLog.Request fetched = answered(before, "POST", agents);
        assertThat(fetched.status).as(host + " fetch POST refused").isIn(401, 403);
        assertCookie(fetched, sameSite, host + "/agent-fetch");
        browser.openUrl(attacker.url(host, "/settings-fetch"));
        browser.waitFor("the cross-site PUT to settle", d -> !d.getTitle().equals("waiting"));
        assertThat(browser.driver().getTitle()).as("the browser's CORS check stops a cross-origin PUT")
            .isEqualTo("blocked");
        browser.ignoreConsoleSoFar();
      }
    }

    JsonArray created = server.get("/api/v1/agents", TOKEN).bodyAsJsonArray();
    assertThat(created.stream().map(a -> ((JsonObject) a).getString("name")))
        .as("agents").hasSize(2).noneMatch(name -> name.startsWith("csrf"));
    JsonObject modelDir = server.get("/api/v1/settings", TOKEN).bodyAsJsonObject().getJsonObject("model_dir");
    assertThat(modelDir.getString("value")).isEqualTo(models.toString());
    assertThat(modelDir.getString("source")).isEqualTo("environment");
    browser.open("/agents");
    assertThat(browser.path()).as("the session survived the cross-site logout").isEqualTo("/agents");
  }

  /** The request with this method and URL made since index, once its response status is known. */
  private NetworkLog.Request answered(int since, String method, String url) {
    return browser.waitFor(method + " " + url + " to be answered", Duration.ofSeconds(10), d -> browser.network()
        .since(since).stream().filter(r -> r.method.equals(method) && r.url.equals(url) && r.status != null && r.sentHeaders != null)
        .findFirst().orElse(null));
  }

  private static void assertCookie(NetworkLog.Request request, boolean sent, String what) {
    String cookies = String.valueOf(request.sentHeader("Cookie"));
    if (sent) {
      assertThat(cookies).as(what + ": a same-site request carries the session cookie").contains("svc_session=");
    } else {
      assertThat(cookies).as(what + ": a cross-site request carries no session cookie").doesNotContain("svc_session=");
    }
  }
}
