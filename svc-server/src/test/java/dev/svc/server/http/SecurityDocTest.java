package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.OnEventLoop;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.Csr;
import dev.svc.core.tls.IssuedKeyPair;
import dev.svc.server.TestServer;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/security.md is the server's access matrix: it lists every route (no more, no fewer) with its
 * access class, and a running server (HTTPS, a global token, two agents with their own tokens and
 * certificates, real ids) answers every route as its class says. The tests the document names exist.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurityDocTest {

  private static final String GLOBAL = "security-doc-global-token";
  private static final String WRONG = "not-a-token-this-server-knows";
  private static final String UNKNOWN_ID = "0123456789abcdef";
  private static final String AGENT_A = "doc-agent-a";
  private static final String AGENT_B = "doc-agent-b";
  /** A name no agent has: not an agent's own resource. */
  private static final String NEW_NAME = "doc-agent-new";
  private static final String MODEL = "/models/doc.gguf";
  private static final Set<Integer> REFUSALS = Set.of(401, 403, 421, 429);
  private static final Pattern ROW = Pattern.compile("^\\|\\s*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\\s*\\|(.*)\\|\\s*$");
  private static final Pattern TICKED = Pattern.compile("`([^`]+)`");
  private static final Pattern TEST_NAME = Pattern.compile("`([A-Z][A-Za-z0-9]*Test)(?:\\.([a-z][A-Za-z0-9]*))?`");
  private static final String LIST_TESTS = "GET /api/v1/quicktest";
  private static final String CANCEL_TEST = "POST /api/v1/quicktest/{id}/cancel";
  private static final Set<String> CLASSES = Set.of("open", "login", "global", "agent", "agent+cert", "page", "static");

  /** One row of a route table; {@code legacy}: the table of the legacy viewer. */
  record Row(String method, String path, String access, String note, List<String> shownBy, boolean legacy, int line) {
    String route() {
      return method + " " + path;
    }

    boolean api() {
      return path.startsWith("/api/");
    }

    boolean mutating() {
      return !method.equals("GET") && !method.equals("HEAD");
    }

    @Override
    public String toString() {
      return route() + " (docs/security.md line " + line + ", " + access + ")";
    }
  }

  /** What came back; an event stream's body is not read. */
  record Reply(int status, MultiMap headers, String body) {
    boolean jsonError() {
      String type = headers.get("Content-Type");
      try {
        return type != null && type.startsWith("application/json") && !new JsonObject(body).getString("error").isBlank();
      } catch (RuntimeException e) {
        return false;
      }
    }

    String cookie() {
      return headers.getAll("Set-Cookie").stream().filter(c -> c.startsWith(Sessions.COOKIE + "=") && !c.startsWith(
          Sessions.COOKIE + "=;")).map(c -> c.substring(0, c.indexOf(';'))).findFirst().orElse(null);
    }

    @Override
    public String toString() {
      String shown = body.length() > 160 ? body.substring(0, 160) + "…" : body;
      return status + (headers.get("Location") == null ? "" : " → " + headers.get("Location"))
          + (shown.isBlank() ? "" : " " + shown.replace('\n', ' '));
    }
  }

  @TempDir
  static Path temp;

  private TestServer server;
  private final List<HttpClient> clients = new ArrayList<>();
  private final Map<HttpClient, Vertx> owners = new IdentityHashMap<>();
  private HttpClient plain;
  private HttpClient certA;
  private HttpClient certB;
  private HttpClient certNew;
  private String idA;
  private String idB;
  private String tokenA;
  private String tokenB;
  private String testId;
  private String testOfB;
  private String commandId;
  private String resultId;
  private String otherResultId;
  private String campaignId;
  private String sessionCookie;
  private String csrf;

  @BeforeAll
  void start() {
    // this class presents wrong tokens on purpose: the failure throttle has its own test
    server = TestServer.start(temp.resolve("home"), new TestServer.Options().authToken(GLOBAL)
        .resultsDir(temp.resolve("results")).env("SVC_AUTH_MAX_FAILURES", "100000"));
    plain = client(server, null);
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(server.home().certs());
    certA = client(server, ca.issueClientKeyPair(AGENT_A));
    certB = client(server, ca.issueClientKeyPair(AGENT_B));
    certNew = client(server, ca.issueClientKeyPair(NEW_NAME));
    provisionFixtures();
  }

  @AfterAll
  void stop() {
    clients.forEach(c -> c.close().await());
    if (server != null) {
      server.close();
    }
  }

  // --- the document ---

  @Test
  void theDocumentListsEveryRouteOfTheServerAndNoOther() {
    List<Row> rows = rows();
    assertThat(rows).as("rows of docs/security.md").hasSizeGreaterThan(50);
    compare(rows.stream().filter(r -> !r.legacy()).toList(), server.running().routes(), "svc web");
  }

  private static void compare(List<Row> rows, List<String> served, String mode) {
    List<String> documented = rows.stream().map(Row::route).toList();
    Set<String> twice = new TreeSet<>();
    Set<String> seen = new LinkedHashSet<>();
    documented.forEach(r -> {
      if (!seen.add(r)) {
        twice.add(r);
      }
    });
    Set<String> undocumented = new TreeSet<>(served);
    undocumented.removeAll(seen);
    Set<String> gone = new TreeSet<>(seen);
    gone.removeAll(new LinkedHashSet<>(served));
    assertThat(undocumented).as("routes of %s that docs/security.md does not list (add a row saying who may call"
        + " them and which test shows it)", mode).isEmpty();
    assertThat(gone).as("routes docs/security.md lists for %s that the server no longer has", mode).isEmpty();
    assertThat(twice).as("routes docs/security.md lists twice for %s", mode).isEmpty();
  }

  @Test
  void everyTestTheDocumentNamesExists() throws IOException {
    String text = Files.readString(document());
    Matcher m = TEST_NAME.matcher(text);
    Set<String> missing = new TreeSet<>();
    int named = 0;
    while (m.find()) {
      named++;
      String className = m.group(1);
      String method = m.group(2);
      Class<?> found = testClass(className);
      if (found == null) {
        missing.add(className + " (no such test class)");
      } else if (method != null && Stream.of(found.getDeclaredMethods()).noneMatch(
          x -> x.getName().equals(method) && isTest(x))) {
        missing.add(className + "." + method + " (no such test method)");
      }
    }
    assertThat(named).as("test names in docs/security.md").isGreaterThan(20);
    assertThat(missing).as("tests docs/security.md names that do not exist").isEmpty();
    for (Row row : rows()) {
      assertThat(row.shownBy()).as("%s names no test that shows it", row).isNotEmpty();
    }
  }

  /** A JUnit test method: @Test, @ParameterizedTest, @RepeatedTest, @TestFactory or @TestTemplate. */
  private static boolean isTest(java.lang.reflect.Method method) {
    return Stream.of(method.getAnnotations()).map(a -> a.annotationType().getSimpleName())
        .anyMatch(Set.of("Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate")::contains);
  }

  // --- the server, route by route ---

  @Test
  void everyRouteAnswersAsItsAccessClassSays() {
    List<String> failures = new ArrayList<>();
    List<Row> rows = rows().stream().filter(r -> !r.legacy()).toList();
    for (Row row : rows) {
      switch (row.access()) {
        case "open" -> open(row, failures);
        case "static" -> expect(failures, row, "without credentials", call(plain, row, concrete(row, true), null, null,
            null), s -> s == 200, "200");
        case "login" -> login(row, failures);
        case "global" -> global(row, failures);
        case "agent" -> agent(row, failures, plain);
        case "agent+cert" -> agentWithCertificate(row, failures);
        case "page" -> page(row, failures);
        default -> failures.add(row + ": unknown access class");
      }
    }
    assertThat(failures).as("routes that do not answer as docs/security.md says").isEmpty();
  }

  @Test
  void withoutAGlobalTokenGlobalRoutesAndPagesAreOpenButAnAgentsTokenStillCounts(@TempDir Path dir) {
    try (TestServer open = TestServer.start(dir.resolve("home"), new TestServer.Options()
        .resultsDir(dir.resolve("results")))) {
      HttpClient anyone = client(open, null);
      clients.remove(anyone); // closed with its server, below
      List<String> failures = new ArrayList<>();
      for (Row row : rows()) {
        if (row.legacy() || !(row.access().equals("global") || row.access().equals("page"))) {
          continue;
        }
        // no fixtures here: unknown ids, so a mutation changes nothing; the guard comes before any lookup
        String path = row.path().replaceAll("\\{[a-z_]+}", UNKNOWN_ID);
        Reply reply = call(anyone, row, path, null, null, row.mutating() ? new JsonObject() : null);
        expect(failures, row, "on a server without a global token, without credentials", reply,
            s -> !REFUSALS.contains(s) && s != 302 && s < 500, "an answer (no 401/403, no login redirect)");
      }
      assertThat(failures).isEmpty();

      JsonObject provisioned = new JsonObject(request(anyone, "/api/v1/agents", HttpMethod.POST, null,
          new JsonObject().put("name", "open-agent")).body());
      String results = "/api/v1/agents/" + provisioned.getString("agent_id") + "/results";
      JsonObject report = new JsonObject().put("command_id", UNKNOWN_ID).put("result_data", new JsonObject());
      assertThat(request(anyone, results, HttpMethod.POST, null, report).status())
          .as("an agent that holds a token needs it on a server without a global token").isEqualTo(401);
      assertThat(request(anyone, results, HttpMethod.POST, provisioned.getString("token"), report).status())
          .isEqualTo(202);
    }
  }

  @Test
  void theLegacyViewerHasTheRoutesItsTableListsAndAllAreOpen(@TempDir Path dir) {
    try (TestServer legacy = TestServer.start(dir.resolve("home"), new TestServer.Options().legacy()
        .resultsDir(dir.resolve("results")))) {
      compare(rows().stream().filter(Row::legacy).toList(), legacy.running().routes(), "svc web --legacy");
      HttpClient anyone = client(legacy, null);
      clients.remove(anyone); // closed with its server, below
      List<String> failures = new ArrayList<>();
      for (Row row : rows()) {
        if (row.legacy()) {
          assertThat(row.access()).as("%s", row).isEqualTo("open");
          expect(failures, row, "without credentials", call(anyone, row, row.path().replaceAll("\\{[a-z_]+}", "0"),
              null, null, null), s -> s == 200 || s == 404, "200 or 404");
        }
      }
      assertThat(failures).isEmpty();
    }
  }

  private void open(Row row, List<String> failures) {
    Reply reply = call(plain, row, concrete(row, true), null, null, row.mutating() ? new JsonObject() : null);
    expect(failures, row, "without credentials", reply, s -> !REFUSALS.contains(s) && s < 500,
        "an answer without credentials (no 401/403)");
  }

  /** The route takes the global token in its body: a wrong one is 403, the right one gives a session. */
  private void login(Row row, List<String> failures) {
    String path = concrete(row, true);
    Reply wrong = row.api() ? call(plain, row, path, null, null, new JsonObject().put("token", WRONG))
        : form(row, path, WRONG);
    expect(failures, row, "with a wrong token", wrong, s -> s == 403, "403");
    if (row.api() && !wrong.jsonError()) {
      failures.add(row + " with a wrong token: expected a JSON {\"error\"}, got " + wrong);
    }
    Reply right = row.api() ? call(plain, row, path, null, null, new JsonObject().put("token", GLOBAL))
        : form(row, path, GLOBAL);
    expect(failures, row, "with the global token", right, s -> s == 200 || s == 302, "200 or a redirect");
    if (right.cookie() == null) {
      failures.add(row + " with the global token: expected a session cookie, got " + right.headers().getAll("Set-Cookie"));
    }
  }

  private Reply form(Row row, String path, String token) {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("Content-Type", "application/x-www-form-urlencoded");
    return send(plain, HttpMethod.valueOf(row.method()), path, headers, Buffer.buffer("token=" + token), row);
  }

  /**
   * Refusals with real ids (the guard runs before any change); acceptance of a mutation with an
   * unknown id (404) or an empty body (400), so that the checks change nothing the others need.
   */
  private void global(Row row, List<String> failures) {
    JsonObject body = row.mutating() ? new JsonObject() : null;
    String real = concrete(row, true);
    refusals(row, failures, plain, real, body);
    expectJsonError(failures, row, "with an agent's own token", call(plain, row, real, tokenA, null, body), 403);

    String accepted = row.mutating() ? concrete(row, false) : real;
    IntPredicate ok = row.mutating() ? s -> !REFUSALS.contains(s) && s < 500 : s -> s >= 200 && s < 300;
    String okText = row.mutating() ? "no refusal (an unknown id or empty body may be 400/404)" : "2xx";
    expect(failures, row, "with the global token", call(plain, row, accepted, GLOBAL, null, body), ok, okText);
    sessions(row, failures, plain, real, accepted, body, ok, okText);
  }

  /** An agent's own resources: its token, the global token or a session; not another agent's token. */
  private void agent(Row row, List<String> failures, HttpClient client) {
    String path = row.route().equals(LIST_TESTS) ? concrete(row, true) + "?agent_id=" + idA : concrete(row, true);
    // a cancel succeeds once per test: each accepted call cancels a fresh queued test of agent A
    java.util.function.Supplier<String> accepted = row.route().equals(CANCEL_TEST)
        ? () -> "/api/v1/quicktest/" + queuedTestOfA() + "/cancel" : () -> path;
    refusals(row, failures, client, path, agentBody(row, AGENT_A));
    expectJsonError(failures, row, "with another agent's token", call(client, row, path, tokenB, null,
        agentBody(row, AGENT_A)), 403);
    IntPredicate ok = s -> s >= 200 && s < 300;
    expect(failures, row, "with the agent's own token", call(client, row, accepted.get(), tokenA, null,
        agentBody(row, AGENT_A)), ok, "2xx");
    expect(failures, row, "with the global token", call(client, row, accepted.get(), GLOBAL, null,
        agentBody(row, AGENT_A)), ok, "2xx");
    if (row.note().contains("bearer token only")) {
      Reply session = call(client, row, path, null, browser(true), agentBody(row, AGENT_A));
      expectJsonError(failures, row, "with a logged-in session (bearer token only)", session, 401);
    } else {
      sessions(row, failures, client, path, accepted.get(), agentBody(row, AGENT_A), ok, "2xx");
    }
    if (row.route().equals(LIST_TESTS)) {
      // the agent's own token reads its own tests only: not every agent's, not another one's
      expectJsonError(failures, row, "with the agent's own token and no agent_id", call(client, row,
          concrete(row, true), tokenA, null, null), 403);
      expectJsonError(failures, row, "with the agent's own token for another agent", call(client, row,
          concrete(row, true) + "?agent_id=" + idB, tokenA, null, null), 403);
    }
    if (row.route().equals("POST /api/v1/agents/certificate") || row.route().equals("POST /api/v1/agents/register")) {
      // a name no agent has yet is not an agent's own resource: it needs the global token (a certificate for
      // that name, where the route wants one, so that the token is what is refused)
      HttpClient forNewName = client == certA ? certNew : client;
      expectJsonError(failures, row, "with an agent's token for a name no agent has", call(forNewName, row, path,
          tokenA, null, agentBody(row, NEW_NAME)), 403);
    }
    if (row.route().equals("POST /api/v1/agents/{id}/results")) {
      // its own path, its own token, but another agent's test
      expectJsonError(failures, row, "with the agent's own token for another agent's test", call(client, row, path,
          tokenA, null, agentBody(row, AGENT_A).put("test_id", testOfB)), 403);
    }
  }

  /** As {@link #agent}, and without a certificate, or with another agent's, even the right token is refused. */
  private void agentWithCertificate(Row row, List<String> failures) {
    agent(row, failures, certA);
    String path = concrete(row, true);
    JsonObject body = agentBody(row, AGENT_A);
    for (String token : new String[] {tokenA, GLOBAL}) {
      String which = token.equals(GLOBAL) ? "the global token" : "the agent's own token";
      expectJsonError(failures, row, "with " + which + " and no client certificate",
          call(plain, row, path, token, null, body), 403);
      expectJsonError(failures, row, "with " + which + " and another agent's certificate",
          call(certB, row, path, token, null, body), 403);
    }
  }

  private void page(Row row, List<String> failures) {
    String path = concrete(row, true);
    Reply anonymous = call(plain, row, path, null, null, null);
    expect(failures, row, "without a session", anonymous, s -> s == 302 && "/login".equals(
        anonymous.headers().get("Location")), "302 to /login");
    Reply bearer = call(plain, row, path, GLOBAL, null, null);
    expect(failures, row, "with the global token but no session", bearer, s -> s == 302 && "/login".equals(
        bearer.headers().get("Location")), "302 to /login (pages take sessions, not bearer tokens)");
    expect(failures, row, "with a logged-in session", call(plain, row, path, null, browser(false), null),
        s -> s == 200, "200");
  }

  /** No credentials: 401; a token the server does not know: 403; both as JSON {"error"} on /api/. */
  private void refusals(Row row, List<String> failures, HttpClient client, String path, JsonObject body) {
    expectJsonError(failures, row, "without credentials", call(client, row, path, null, null, body), 401);
    expectJsonError(failures, row, "with a wrong bearer token", call(client, row, path, WRONG, null, body), 403);
  }

  /** A logged-in session reads; its state changes need the session's CSRF token. */
  private void sessions(Row row, List<String> failures, HttpClient client, String refusedPath, String acceptedPath,
      JsonObject body, IntPredicate ok, String okText) {
    if (row.mutating()) {
      Reply noCsrf = call(client, row, refusedPath, null, browser(false), body);
      expectJsonError(failures, row, "with a logged-in session but no CSRF token", noCsrf, 403);
      expect(failures, row, "with a logged-in session and its CSRF token", call(client, row, acceptedPath, null,
          browser(true), body), ok, okText);
    } else {
      expect(failures, row, "with a logged-in session", call(client, row, acceptedPath, null, browser(false), body),
          ok, okText);
    }
  }

  private MultiMap browser(boolean withCsrf) {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("Cookie", sessionCookie).add("Origin", server.baseUrl());
    if (withCsrf) {
      headers.add(Sessions.CSRF_HEADER, csrf);
    }
    return headers;
  }

  private static void expectJsonError(List<String> failures, Row row, String what, Reply reply, int status) {
    expect(failures, row, what, reply, s -> s == status, status + (row.api() ? " with a JSON {\"error\"}" : ""));
    if (reply.status() == status && row.api() && !reply.jsonError()) {
      failures.add(row + " " + what + ": expected a JSON {\"error\"}, got " + reply);
    }
  }

  private static void expect(List<String> failures, Row row, String what, Reply reply, IntPredicate ok,
      String expected) {
    if (!ok.test(reply.status())) {
      failures.add(row + " " + what + ": expected " + expected + ", got " + reply);
    }
  }

  // --- requests ---

  /** The route's path with real ids ({@code real}) or an unknown one; static routes get a real file. */
  private String concrete(Row row, boolean real) {
    String path = row.path();
    // describe() prints a route of a folder's files as the folder
    if (path.equals("/static/vendor/")) {
      return vendoredScript();
    }
    if (path.equals("/static/")) {
      return "/static/app.css";
    }
    if (path.endsWith("*") || path.endsWith("/") && path.length() > 1) {
      throw new AssertionError(row + ": SecurityDocTest has no example file for this route; add one to concrete()");
    }
    if (!path.contains("{")) {
      return path.equals("/results/compare") || path.equals("/results/compare.csv")
          ? path + "?ids=" + resultId + "," + otherResultId : path;
    }
    String id;
    String resource = path.replaceFirst("^/api/v1", "");
    if (!real) {
      id = UNKNOWN_ID;
    } else if (resource.startsWith("/agents/")) {
      id = idA;
    } else if (resource.startsWith("/quicktest/") || resource.startsWith("/events/stream/")) {
      id = testId;
    } else if (resource.startsWith("/campaigns/")) {
      id = campaignId;
    } else if (resource.startsWith("/results/")) {
      id = resultId;
    } else {
      throw new AssertionError(row + ": SecurityDocTest has no example id for this route; add one to concrete()");
    }
    return path.replaceAll("\\{[a-z_]+}", id);
  }

  /** A valid request body for agent A's resources (a 2xx needs one: these routes read the body first). */
  private JsonObject agentBody(Row row, String name) {
    return switch (row.route()) {
      case "POST /api/v1/agents/register" -> registration(name);
      case "POST /api/v1/agents/certificate" -> new JsonObject().put("name", name).put("csr", csr(name));
      case "POST /api/v1/agents/{id}/heartbeat" -> new JsonObject().put("status", "running").put("current_task", testId);
      case "POST /api/v1/agents/{id}/results" -> new JsonObject().put("command_id", commandId).put("test_id", testId)
          .put("result_data", new JsonObject().put("engine", "llama_cpp").put("model", MODEL));
      case "POST /api/v1/quicktest/{id}/logs" -> new JsonObject().put("line", "a line from SecurityDocTest");
      case "POST /api/v1/quicktest/{id}/status" -> new JsonObject().put("status", "running");
      case CANCEL_TEST -> new JsonObject();
      case LIST_TESTS -> null;
      default -> throw new AssertionError(row + ": SecurityDocTest has no example body for this agent route;"
          + " add one to agentBody()");
    };
  }

  private Reply call(HttpClient client, Row row, String path, String bearer, MultiMap extra, JsonObject body) {
    return call(client, row, path, HttpMethod.valueOf(row.method()), bearer, extra, body);
  }

  private Reply call(HttpClient client, Row row, String path, HttpMethod method, String bearer, MultiMap extra,
      JsonObject body) {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    if (extra != null) {
      headers.addAll(extra);
    }
    if (bearer != null) {
      headers.add("Authorization", "Bearer " + bearer);
    }
    if (body != null) {
      headers.add("Content-Type", "application/json");
    }
    return send(client, method, path, headers, body == null ? null : body.toBuffer(), row);
  }

  private Reply request(HttpClient client, String path, HttpMethod method, String bearer, JsonObject body) {
    return call(client, null, path, method, bearer, null, body);
  }

  /** Sends and waits; an event stream is answered by its status and headers, and then cut off. */
  private Reply send(HttpClient client, HttpMethod method, String path, MultiMap headers, Buffer body, Row row) {
    RequestOptions options = new RequestOptions().setMethod(method).setURI(path).setHeaders(headers)
        .setIdleTimeout(15_000);
    try {
      return OnEventLoop.call(owners.get(client), () -> client.request(options).compose(request -> (body == null ? request.send() : request.send(body))
          .compose(response -> {
            String type = response.getHeader("Content-Type");
            if (type != null && type.startsWith("text/event-stream")) {
              return response.request().reset().map(v -> new Reply(response.statusCode(), response.headers(), ""));
            }
            return response.body().map(b -> new Reply(response.statusCode(), response.headers(), b.toString()));
          }))).await();
    } catch (RuntimeException e) {
      throw new IllegalStateException((row == null ? "" : row + ": ") + method + " " + path + " failed: "
          + e.getMessage(), e);
    }
  }

  private HttpClient client(TestServer target, IssuedKeyPair certificate) {
    HttpClientOptions options = new HttpClientOptions().setDefaultHost("localhost").setDefaultPort(target.port())
        .setConnectTimeout(5000).setSsl(target.tls());
    if (target.tls()) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(target.home().certs().resolve("ca.pem").toString()));
      if (certificate != null) {
        options.setKeyCertOptions(new PemKeyCertOptions().setCertValue(Buffer.buffer(certificate.certificatePem()))
            .setKeyValue(Buffer.buffer(certificate.privateKeyPem())));
      }
    }
    HttpClient created = target.vertx().createHttpClient(options);
    clients.add(created);
    owners.put(created, target.vertx());
    return created;
  }

  // --- fixtures: two agents, a test of agent A dispatched to it and running, its result, a campaign ---

  private void provisionFixtures() {
    JsonObject a = ok(request(plain, "/api/v1/agents", HttpMethod.POST, GLOBAL, new JsonObject().put("name", AGENT_A)),
        201);
    idA = a.getString("agent_id");
    tokenA = a.getString("token");
    JsonObject b = ok(request(plain, "/api/v1/agents", HttpMethod.POST, GLOBAL, new JsonObject().put("name", AGENT_B)),
        201);
    idB = b.getString("agent_id");
    tokenB = b.getString("token");
    ok(request(certA, "/api/v1/agents/register", HttpMethod.POST, tokenA, registration(AGENT_A)), 201);
    ok(request(certB, "/api/v1/agents/register", HttpMethod.POST, tokenB, registration(AGENT_B)), 201);
    testId = ok(request(plain, "/api/v1/quicktest", HttpMethod.POST, GLOBAL, new JsonObject().put("agent_id", idA)
        .put("model_path", MODEL).put("engine_name", "llama_cpp")), 202).getString("id");
    testOfB = ok(request(plain, "/api/v1/quicktest", HttpMethod.POST, GLOBAL, new JsonObject().put("agent_id", idB)
        .put("model_path", MODEL).put("engine_name", "llama_cpp")), 202).getString("id");
    JsonArray commands = ok(request(certA, "/api/v1/agents/" + idA + "/heartbeat", HttpMethod.POST, tokenA,
        new JsonObject().put("status", "idle")), 200).getJsonArray("commands");
    assertThat(commands).as("the heartbeat hands agent A its test").hasSize(1);
    commandId = commands.getJsonObject(0).getString("command_id");
    ok(request(plain, "/api/v1/quicktest/" + testId + "/status", HttpMethod.POST, tokenA,
        new JsonObject().put("status", "running")), 200);
    resultId = ok(request(plain, "/api/v1/agents/" + idA + "/results", HttpMethod.POST, tokenA,
        new JsonObject().put("command_id", commandId).put("test_id", testId)
            .put("result_data", new JsonObject().put("engine", "llama_cpp").put("model", MODEL))), 202)
        .getString("result_id");
    // a result of no test (as an agent reports a run it started itself), for the comparison page
    otherResultId = ok(request(plain, "/api/v1/agents/" + idA + "/results", HttpMethod.POST, tokenA,
        new JsonObject().put("command_id", "doc-own-run").put("result_data", new JsonObject()
            .put("engine", "llama_cpp").put("model", MODEL))), 202).getString("result_id");
    campaignId = ok(request(plain, "/api/v1/campaigns", HttpMethod.POST, GLOBAL, new JsonObject()
        .put("name", "doc campaign").put("agent_id", idA).put("config", new JsonObject()
            .put("models", new JsonArray().add(MODEL)).put("engines", new JsonArray().add(new JsonObject()
                .put("name", "llama_cpp"))).put("benchmarks", new JsonArray().add("throughput")).put("force", true))),
        201).getString("id");
    Reply login = request(plain, "/api/v1/session", HttpMethod.POST, null, new JsonObject().put("token", GLOBAL));
    csrf = ok(login, 200).getString(Sessions.CSRF_FIELD);
    sessionCookie = login.cookie();
    assertThat(sessionCookie).isNotNull();
  }

  /** A new queued test of agent A, for a route that changes a test for good. */
  private String queuedTestOfA() {
    return ok(request(plain, "/api/v1/quicktest", HttpMethod.POST, GLOBAL, new JsonObject().put("agent_id", idA)
        .put("model_path", MODEL).put("engine_name", "llama_cpp")), 202).getString("id");
  }

  private static JsonObject ok(Reply reply, int status) {
    assertThat(reply.status()).as("fixture request: %s", reply).isEqualTo(status);
    return new JsonObject(reply.body());
  }

  private static JsonObject registration(String name) {
    return new JsonObject().put("name", name).put("hostname", name + ".lab").put("cpu_arch", "x86_64")
        .put("capabilities", new JsonArray().add("llama_cpp").add("vllm"));
  }

  private static String csr(String name) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair keys = generator.generateKeyPair();
      return Csr.create(keys, name);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The vendored htmx the pages load (its path names its version, so it is read from the server's code). */
  private static String vendoredScript() {
    try {
      var field = Class.forName("dev.svc.server.web.StaticAssets").getDeclaredField("HTMX");
      field.setAccessible(true);
      return (String) field.get(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("StaticAssets.HTMX is gone; give SecurityDocTest another vendored file", e);
    }
  }

  // --- parsing docs/security.md ---

  /** docs/security.md of this checkout, found from the module folder (or the root) the tests run in. */
  static Path document() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("docs").resolve("security.md");
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError("docs/security.md not found above " + Path.of("").toAbsolutePath());
  }

  /** The rows of the route tables; those after a heading that names the legacy viewer are its routes. */
  static List<Row> rows() {
    List<String> lines;
    try {
      lines = Files.readAllLines(document());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Row> rows = new ArrayList<>();
    boolean legacy = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("#")) {
        legacy = line.toLowerCase(java.util.Locale.ROOT).contains("legacy");
        continue;
      }
      Matcher m = ROW.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String[] cells = m.group(2).split("\\|", -1);
      if (cells.length != 3) {
        throw new AssertionError("docs/security.md line " + (i + 1) + ": expected 4 cells (method | path | who may"
            + " call | shown by), got " + (cells.length + 1) + ": " + line);
      }
      String path = cells[0].trim().replace("`", "");
      Matcher access = TICKED.matcher(cells[1]);
      if (!access.find() || !CLASSES.contains(access.group(1))) {
        throw new AssertionError("docs/security.md line " + (i + 1) + ": 'who may call' must start with one of "
            + CLASSES + " in backticks: " + line);
      }
      List<String> shownBy = new ArrayList<>();
      Matcher named = TICKED.matcher(cells[2]);
      while (named.find()) {
        shownBy.add(named.group(1));
      }
      rows.add(new Row(m.group(1), path, access.group(1), cells[1].substring(access.end()).trim(), shownBy, legacy,
          i + 1));
    }
    return rows;
  }

  /** A test class of this module by its simple name, found among the compiled test classes. */
  private static Class<?> testClass(String simpleName) throws IOException {
    Path root;
    try {
      root = Path.of(SecurityDocTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    List<Path> found;
    try (Stream<Path> files = Files.walk(root)) {
      found = files.filter(f -> f.getFileName().toString().equals(simpleName + ".class")).toList();
    }
    if (found.size() != 1) {
      return null;
    }
    String name = root.relativize(found.get(0)).toString().replace(java.io.File.separatorChar, '.')
        .replaceFirst("\\.class$", "");
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      return null;
    }
  }
}
