package dev.svc.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The pages' security: a strict CSP, every asset served by the server itself, and the login gate. */
class DashboardSecurityTest {

  private static final Pattern ASSET = Pattern.compile("\\s(?:src|href)=\"([^\"]*)\"");

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  @Test
  void pagesCarryAStrictContentSecurityPolicy() {
    TestServer server = servers.start();
    String agent = server.post("/api/v1/agents/test", new JsonObject().put("name", "sim")).bodyAsJsonObject()
        .getString("id");
    for (String path : new String[] {"/", "/agents", "/agents/" + agent, "/agents/unknown", "/static/app.js"}) {
      HttpResponse<Buffer> response = server.get(path);
      assertThat(response.getHeader("Content-Security-Policy")).as(path)
          .isEqualTo("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'");
      assertThat(response.getHeader("X-Content-Type-Options")).as(path).isEqualTo("nosniff");
      assertThat(response.getHeader("Referrer-Policy")).as(path).isEqualTo("same-origin");
      if (response.getHeader("Content-Type").startsWith("text/html")) {
        String html = response.bodyAsString();
        assertThat(html).as(path + ": no inline script or style").doesNotContainPattern("<script(?![^>]*\\ssrc=)")
            .doesNotContain("<style").doesNotContainPattern("\\sstyle=").doesNotContainPattern("\\son[a-z]+=");
      }
    }
  }

  @Test
  void everyScriptAndStylesheetIsServedByTheServer() {
    TestServer server = servers.start();
    String agent = server.post("/api/v1/agents/test", new JsonObject().put("name", "sim")).bodyAsJsonObject()
        .getString("id");
    Set<String> assets = new LinkedHashSet<>();
    for (String path : new String[] {"/", "/agents", "/agents/" + agent}) {
      Matcher m = ASSET.matcher(server.get(path).bodyAsString());
      while (m.find()) {
        String url = m.group(1);
        assertThat(url).as("same-origin URL in " + path).startsWith("/").doesNotStartWith("//");
        if (url.startsWith("/static/")) {
          assets.add(url);
        }
      }
    }
    assertThat(assets).contains("/static/app.js", "/static/app.css", StaticAssets.HTMX);
    for (String url : assets) {
      HttpResponse<Buffer> response = server.get(url);
      assertThat(response.statusCode()).as(url).isEqualTo(200);
      String type = response.getHeader("Content-Type");
      if (url.endsWith(".js")) {
        assertThat(type).as(url).containsAnyOf("javascript", "ecmascript");
      } else if (url.endsWith(".css")) {
        assertThat(type).as(url).startsWith("text/css");
      }
      assertThat(response.body().length()).as(url).isPositive();
    }
    HttpResponse<Buffer> chart = server.get(StaticAssets.CHART_JS);
    assertThat(chart.statusCode()).isEqualTo(200);
    assertThat(chart.getHeader("Content-Type")).contains("javascript");
    assertThat(server.get("/static/vendor/").statusCode()).as("no directory listing").isEqualTo(404);
    assertThat(server.get("/static/../pom.xml").statusCode()).isIn(400, 404);
  }

  @Test
  void pagesNeedALoginWhenATokenIsSet() {
    WebClient noRedirects = servers.start(new TestServer.Options().authToken("t")).clientNotFollowingRedirects();
    for (String path : new String[] {"/", "/agents", "/agents/x"}) {
      HttpResponse<Buffer> response = noRedirects.get(path).send().await();
      assertThat(response.statusCode()).as(path).isEqualTo(302);
      assertThat(response.getHeader("Location")).isEqualTo("/login");
    }
    HttpResponse<Buffer> form = noRedirects.get("/login").send().await();
    assertThat(form.statusCode()).isEqualTo(200);
    assertThat(form.bodyAsString()).contains("name=\"token\"", "action=\"/login\"");

    HttpResponse<Buffer> wrong = login(noRedirects, "nope", MultiMap.caseInsensitiveMultiMap());
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(wrong.bodyAsString()).contains("Wrong token", "name=\"token\"");
    assertThat(wrong.cookies()).noneMatch(c -> c.startsWith("svc_session=") && !c.startsWith("svc_session=;"));

    HttpResponse<Buffer> crossSite =
        login(noRedirects, "t", MultiMap.caseInsensitiveMultiMap().add("Origin", "https://evil.example"));
    assertThat(crossSite.statusCode()).isEqualTo(403);

    HttpResponse<Buffer> ok = login(noRedirects, "t", MultiMap.caseInsensitiveMultiMap());
    assertThat(ok.statusCode()).isEqualTo(302);
    assertThat(ok.getHeader("Location")).isEqualTo("/");
    String cookie = ok.cookies().stream().filter(c -> c.startsWith("svc_session=")).findFirst().orElseThrow();
    assertThat(cookie).containsIgnoringCase("HttpOnly").contains("SameSite=Strict");

    HttpResponse<Buffer> home = noRedirects.get("/").putHeader("Cookie", cookie.substring(0, cookie.indexOf(';')))
        .send().await();
    assertThat(home.statusCode()).isEqualTo(200);
    assertThat(home.bodyAsString()).contains("Fleet at a glance", "Log out");

    String session = cookie.substring(0, cookie.indexOf(';'));
    Matcher csrf = Pattern.compile("<meta name=\"csrf-token\" content=\"([0-9a-f]+)\">").matcher(home.bodyAsString());
    assertThat(csrf.find()).isTrue();
    HttpResponse<Buffer> forged = noRedirects.post("/logout").putHeader("Cookie", session)
        .sendForm(MultiMap.caseInsensitiveMultiMap()).await();
    assertThat(forged.statusCode()).as("logout without the CSRF token").isEqualTo(403);
    HttpResponse<Buffer> logout = noRedirects.post("/logout").putHeader("Cookie", session)
        .sendForm(MultiMap.caseInsensitiveMultiMap().add("csrf_token", csrf.group(1))).await();
    assertThat(logout.statusCode()).isEqualTo(302);
    assertThat(logout.getHeader("Location")).isEqualTo("/login");
  }

  private static HttpResponse<Buffer> login(WebClient noRedirects, String token, MultiMap headers) {
    MultiMap form = MultiMap.caseInsensitiveMultiMap().add("token", token);
    return noRedirects.post("/login").putHeaders(headers).sendForm(form).await();
  }
}
