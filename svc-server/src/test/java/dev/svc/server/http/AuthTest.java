package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** With --auth-token: every mutating endpoint refuses a missing (401) or wrong (403) token; CSRF guards browsers. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthTest {

  private static final String TOKEN = "s3cret-global-token";
  /** Endpoints that are open by design (protocol.md section 9) or have their own rule. */
  private static final Set<String> OPEN = Set.of("POST /api/v1/session", "DELETE /api/v1/session");

  @TempDir
  static Path home;

  private TestServer server;

  @BeforeAll
  void start() {
    // this class sends every route a wrong token on purpose; the failure throttle has its own test (AuthThrottleTest)
    server = TestServer.start(home, new TestServer.Options().authToken(TOKEN).env("SVC_AUTH_MAX_FAILURES", "1000"));
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private List<String[]> mutatingRoutes() {
    List<String[]> out = new ArrayList<>();
    for (String route : server.running().routes()) {
      String[] parts = route.split(" ", 2);
      // the API's endpoints; the dashboard's /login and /logout forms have their own rules (web tests)
      if (Set.of("POST", "PUT", "PATCH", "DELETE").contains(parts[0]) && !OPEN.contains(route)
          && parts[1].startsWith("/api/")) {
        out.add(new String[] {parts[0], parts[1].replace("{id}", "0123456789abcdef")});
      }
    }
    return out;
  }

  @Test
  void mutatingEndpointsRefuseMissingAndWrongTokens() {
    List<String[]> routes = mutatingRoutes();
    assertThat(routes).hasSizeGreaterThan(15);
    List<String> wrongStatus = new ArrayList<>();
    for (String[] r : routes) {
      // Registration and heartbeat first demand the client certificate: present one.
      var client = server.agentClient("auth-probe");
      HttpResponse<Buffer> missing = TestServer.send(client, HttpMethod.valueOf(r[0]), r[1], null, new JsonObject());
      HttpResponse<Buffer> wrong = TestServer.send(client, HttpMethod.valueOf(r[0]), r[1], "wrong-token", new JsonObject());
      if (missing.statusCode() != 401 || !isJsonError(missing)) {
        wrongStatus.add(r[0] + " " + r[1] + " without token → " + missing.statusCode() + " " + missing.bodyAsString());
      }
      if (wrong.statusCode() != 403 || !isJsonError(wrong)) {
        wrongStatus.add(r[0] + " " + r[1] + " with a wrong token → " + wrong.statusCode() + " " + wrong.bodyAsString());
      }
    }
    assertThat(wrongStatus).isEmpty();
  }

  @Test
  void readEndpointsNeedTheTokenButHealthDoesNot() {
    assertThat(server.get("/api/v1/health").statusCode()).isEqualTo(200);
    assertThat(server.get("/api/v1/version").statusCode()).isEqualTo(200);
    assertThat(server.get("/api/v1/agents").statusCode()).isEqualTo(401);
    assertThat(server.get("/api/v1/results", "nope").statusCode()).isEqualTo(403);
    assertThat(server.get("/api/v1/results", TOKEN).statusCode()).isEqualTo(200);
  }

  @Test
  void browserStylePostNeedsCsrfTokenUnlessBearerIsValid() {
    // Log in like the dashboard: the session cookie is HttpOnly and SameSite=Strict.
    HttpResponse<Buffer> login = server.post("/api/v1/session", new JsonObject().put("token", TOKEN));
    assertThat(login.statusCode()).isEqualTo(200);
    String setCookie = login.getHeader("Set-Cookie");
    assertThat(setCookie).contains("svc_session=").containsIgnoringCase("HttpOnly").contains("SameSite=Strict")
        .contains("Secure");
    String cookie = setCookie.substring(0, setCookie.indexOf(';'));
    String csrf = login.bodyAsJsonObject().getString("csrf_token");

    JsonObject testAgent = new JsonObject().put("name", "browser-agent").put("gpu_count", 1).put("ram_gb", 64);
    MultiMap browser = MultiMap.caseInsensitiveMultiMap().add("Cookie", cookie).add("Origin", server.baseUrl());
    HttpResponse<Buffer> noCsrf = TestServer.send(server.client(), HttpMethod.POST, "/api/v1/agents/test", null,
        testAgent, browser);
    assertThat(noCsrf.statusCode()).isEqualTo(403);
    assertThat(noCsrf.bodyAsJsonObject().getString("error")).contains("CSRF");

    HttpResponse<Buffer> badCsrf = TestServer.send(server.client(), HttpMethod.POST, "/api/v1/agents/test", null,
        testAgent, MultiMap.caseInsensitiveMultiMap().addAll(browser).add(Sessions.CSRF_HEADER, "forged"));
    assertThat(badCsrf.statusCode()).isEqualTo(403);

    HttpResponse<Buffer> withCsrf = TestServer.send(server.client(), HttpMethod.POST, "/api/v1/agents/test", null,
        testAgent, MultiMap.caseInsensitiveMultiMap().addAll(browser).add(Sessions.CSRF_HEADER, csrf));
    assertThat(withCsrf.statusCode()).isEqualTo(201);

    // A valid bearer token exempts the same browser-style request from the CSRF check...
    HttpResponse<Buffer> bearer = TestServer.send(server.client(), HttpMethod.POST, "/api/v1/agents/test", TOKEN,
        testAgent.copy().put("name", "bearer-agent"), browser);
    assertThat(bearer.statusCode()).isEqualTo(201);
    // ...but an invalid one does not.
    HttpResponse<Buffer> badBearer = TestServer.send(server.client(), HttpMethod.POST, "/api/v1/agents/test", "nope",
        testAgent.copy().put("name", "bad-bearer"), browser);
    assertThat(badBearer.statusCode()).isEqualTo(403);
  }

  @Test
  void loginWithAWrongTokenIsRefused() {
    HttpResponse<Buffer> login = server.post("/api/v1/session", new JsonObject().put("token", "guess"));
    assertThat(login.statusCode()).isEqualTo(403);
    assertThat(login.getHeader("Set-Cookie")).isNull();
  }

  private static boolean isJsonError(HttpResponse<Buffer> response) {
    try {
      return response.getHeader("Content-Type").startsWith("application/json")
          && !response.bodyAsJsonObject().getString("error").isBlank();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
