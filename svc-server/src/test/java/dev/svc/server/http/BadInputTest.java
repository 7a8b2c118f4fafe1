package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.svc.core.protocol.LogBatch;
import dev.svc.server.TestServer;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Named;

/**
 * Bad input on every endpoint: malformed JSON, wrong types, missing fields, unknown ids, oversize bodies,
 * bad pagination, illegal status transitions and path-traversal strings. Each gets the status of
 * protocol.md section 0 with a JSON {"error"} body: never a 500, never an HTML page, never a stack trace.
 *
 * <p>Most cases are generated from the server's own route list, so a new route is covered (and, when its
 * behaviour differs, flagged) without touching this class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {

  private static final String UNKNOWN_ID = "0123456789abcdef";
  private static final String AGENT_TOKEN = "ab".repeat(32);
  private static final String WRONG_TOKEN = "cd".repeat(32);
  private static final String GOOD_MODEL = "/models/llama-3-8b";
  private static final Pattern PARAM = Pattern.compile("\\{[^}]+}");

  /** Ids for the {id} of a route that is not the one under test: unknown, garbage, injection, traversal. */
  private static final List<String> BAD_IDS = List.of(
      UNKNOWN_ID,
      "fedcba9876543210",
      "not-a-hex-id",
      "0123456789ABCDEF",
      "x".repeat(300),
      "%27%20OR%20%271%27%3D%271",
      "..%2f..%2fetc%2fpasswd",
      "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
      "..%5c..%5cwindows%5cwin.ini");

  /** State-changing routes that read no body: no malformed-body or oversize cases for them. */
  private static final Set<String> NO_BODY = Set.of(
      "DELETE /api/v1/agents/{id}",
      "POST /api/v1/agents/{id}/rotate-token",
      "POST /api/v1/quicktest/{id}/cancel",
      "DELETE /api/v1/campaigns/{id}",
      "POST /api/v1/campaigns/{id}/launch",
      "POST /api/v1/campaigns/{id}/cancel",
      "DELETE /api/v1/results/{id}",
      "DELETE /api/v1/session");

  /** The smallest valid body of an {id} route, so that an unknown id is what gets refused. */
  private static final Map<String, String> VALID_BODY = Map.of(
      "POST /api/v1/agents/{id}/results", "{\"command_id\":\"c-unknown\"}",
      "POST /api/v1/quicktest/{id}/logs", "{\"line\":\"hello\"}",
      "POST /api/v1/quicktest/{id}/status", "{\"status\":\"running\"}");

  /** Routes whose body may be empty (treated as {}): no empty-body case for them. */
  private static final Set<String> EMPTY_BODY_OK = Set.of(
      "POST /api/v1/agents/{id}/heartbeat",
      "POST /api/v1/agents/{id}/cleanup");

  @TempDir
  static Path home;
  @TempDir
  static Path authHome;

  private TestServer server;
  private TestServer authServer;
  private WebClient agentHttp;
  /** One client certificate per agent name: a certificate speaks only for the agent it names. */
  private final Map<String, WebClient> agentClients = new java.util.HashMap<>();
  private List<String> routes;

  private String realAgent;
  private String tokenAgent;
  private String testAgent;
  private String testAgentName;
  private String armAgent;
  private String queuedTest;
  private String completedTest;
  private String cancelledTest;
  private String simulatedTest;
  private String draftCampaign;
  private String queuedCampaign;

  /** One request and what it must get. */
  record Case(HttpMethod method, String uri, Object body, int expected, boolean agentCert, MultiMap headers,
      boolean raw) {
    Case(HttpMethod method, String uri, Object body, int expected, boolean agentCert, MultiMap headers) {
      this(method, uri, body, expected, agentCert, headers, false);
    }

    @Override
    public String toString() {
      return method + " " + uri + " → " + expected;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // fixtures

  @BeforeAll
  void start() {
    server = TestServer.start(home);
    authServer = TestServer.start(authHome, new TestServer.Options().insecure().authToken("global-secret"));
    agentHttp = server.agentClient("bad-input-agent");
    // the JSON-error contract is the API's: dashboard pages (HTML) are only swept for server faults
    routes = List.copyOf(new LinkedHashSet<>(server.running().routes().stream().filter(r -> r.contains(" /api/")).toList()));

    realAgent = ok(send(agentClient("bad-input-real"), HttpMethod.POST, "/api/v1/agents/register", null,
        new JsonObject().put("name", "bad-input-real").put("hostname", "host-1").put("cpu_arch", "x86_64")), 201)
        .getString("agent_id");
    tokenAgent = ok(send(agentClient("bad-input-tokened"), HttpMethod.POST, "/api/v1/agents/register", AGENT_TOKEN,
        new JsonObject().put("name", "bad-input-tokened").put("hostname", "host-2")), 201).getString("agent_id");
    testAgentName = "bad-input-sim";
    testAgent = ok(post("/api/v1/agents/test", new JsonObject().put("name", testAgentName).put("cpu_arch", "amd64")), 201)
        .getString("id");
    armAgent = ok(post("/api/v1/agents/test", new JsonObject().put("name", "bad-input-arm").put("cpu_arch", "arm64")), 201)
        .getString("id");

    // Tests that the fixtures move themselves belong to the real agent: a test agent's are simulated.
    completedTest = submitTest(realAgent);
    ok(send(agentClient("bad-input-real"), HttpMethod.POST, "/api/v1/agents/" + realAgent + "/heartbeat", null,
        new JsonObject()), 200);
    ok(post("/api/v1/quicktest/" + completedTest + "/status", new JsonObject().put("status", "running")), 200);
    ok(post("/api/v1/quicktest/" + completedTest + "/status", new JsonObject().put("status", "completed")), 200);
    queuedTest = submitTest(realAgent);
    cancelledTest = submitTest(realAgent);
    simulatedTest = submitTest(testAgent);
    ok(post("/api/v1/quicktest/" + cancelledTest + "/cancel", null), 200);

    draftCampaign = ok(post("/api/v1/campaigns", campaign("bad-input-draft", testAgent, GOOD_MODEL)), 201).getString("id");
    queuedCampaign = ok(post("/api/v1/campaigns", campaign("bad-input-queued", realAgent, GOOD_MODEL)), 201)
        .getString("id");
    ok(post("/api/v1/campaigns/" + queuedCampaign + "/launch", null), 202);
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
    if (authServer != null) {
      authServer.close();
    }
  }

  private WebClient agentClient(String name) {
    return agentClients.computeIfAbsent(name, server::agentClient);
  }

  /** The client of a case: the certificate of the agent it registers or heartbeats as, when it names one. */
  private WebClient clientFor(Case c) {
    if (!c.agentCert()) {
      return server.client();
    }
    if (c.uri().equals("/api/v1/agents/register") && c.body() instanceof JsonObject
        && ((JsonObject) c.body()).getValue("name") instanceof String) {
      try {
        return agentClient(((JsonObject) c.body()).getString("name").trim());
      } catch (IllegalArgumentException noCertificateForThatName) {
        return agentHttp; // blank or too long for a certificate: the body is refused first anyway
      }
    }
    if (c.uri().startsWith("/api/v1/agents/" + realAgent + "/")) {
      return agentClient("bad-input-real");
    }
    if (c.uri().startsWith("/api/v1/agents/" + tokenAgent + "/")) {
      return agentClient("bad-input-tokened");
    }
    return agentHttp;
  }

  private String submitTest(String agentId) {
    return ok(post("/api/v1/quicktest", new JsonObject().put("agent_id", agentId).put("model_path", GOOD_MODEL)
        .put("engine_name", "vllm")), 202).getString("id");
  }

  private static JsonObject campaign(String name, String agentId, String modelPath) {
    return new JsonObject().put("name", name).put("agent_id", agentId).put("config", new JsonObject()
        .put("models", new JsonArray().add(new JsonObject().put("name", "m").put("path", modelPath)))
        .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")))
        .put("benchmarks", new JsonArray().add("throughput")));
  }

  private HttpResponse<Buffer> post(String path, Object body) {
    return send(server.client(), HttpMethod.POST, path, null, body);
  }

  private static HttpResponse<Buffer> send(WebClient client, HttpMethod method, String path, String token, Object body) {
    return TestServer.send(client, method, path, token, body);
  }

  private static JsonObject ok(HttpResponse<Buffer> response, int status) {
    assertThat(response.statusCode()).as("fixture: %s", response.bodyAsString()).isEqualTo(status);
    return response.bodyAsJsonObject();
  }

  // ---------------------------------------------------------------------------------------------
  // the cases

  Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    malformedBodies(out);
    wrongTypesAndMissingFields(out);
    unknownIds(out);
    pathTraversal(out);
    oversizeBodies(out);
    badPagination(out);
    illegalTransitions(out);
    authAndIncompatible(out);
    rawRequests(out);
    return out.stream();
  }

  private void add(List<Arguments> out, String label, HttpMethod method, String uri, Object body, int expected) {
    add(out, label, method, uri, body, expected, false, null);
  }

  private void add(List<Arguments> out, String label, HttpMethod method, String uri, Object body, int expected,
      boolean agentCert, MultiMap headers) {
    boolean cert = agentCert || uri.endsWith("/register") || uri.endsWith("/heartbeat");
    out.add(Arguments.of(Named.of(method + " " + shorten(uri) + " " + label,
        new Case(method, uri, body, expected, cert, headers))));
  }

  private static String shorten(String uri) {
    return uri.length() > 120 ? uri.substring(0, 117) + "..." : uri;
  }

  /** Routes that take a JSON body: every POST/PUT/PATCH route except the ones that read none. */
  private List<String> bodyRoutes() {
    return routes.stream().filter(r -> r.startsWith("POST ") || r.startsWith("PUT ") || r.startsWith("PATCH "))
        .filter(r -> !NO_BODY.contains(r)).toList();
  }

  private static HttpMethod method(String route) {
    return HttpMethod.valueOf(route.substring(0, route.indexOf(' ')));
  }

  private static String template(String route) {
    return route.substring(route.indexOf(' ') + 1);
  }

  /** A route's path with its {id} set to an existing fixture of the right kind (unknown for other kinds). */
  private String withFixture(String route) {
    String path = template(route);
    String id = path.startsWith("/api/v1/agents/") ? realAgent
        : path.startsWith("/api/v1/quicktest/") ? queuedTest
        : path.startsWith("/api/v1/campaigns/") ? draftCampaign : UNKNOWN_ID;
    return PARAM.matcher(path).replaceAll(id);
  }

  private void malformedBodies(List<Arguments> out) {
    Map<String, Object> bodies = new java.util.LinkedHashMap<>();
    bodies.put("malformed JSON", "{bad");
    bodies.put("JSON array instead of object", "[1,2,3]");
    bodies.put("JSON string instead of object", "\"text\"");
    bodies.put("JSON null", "null");
    bodies.put("JSON number", "42");
    bodies.put("trailing garbage", "{\"a\":1} trailing");
    bodies.put("truncated object", "{\"name\":\"x\",");
    bodies.put("deeply nested", "[".repeat(5000) + "]".repeat(5000));
    bodies.put("overlong number", "[" + "9".repeat(5000) + "]");
    bodies.put("not JSON at all", "name=x&hostname=y");
    bodies.put("invalid UTF-8", Buffer.buffer(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '(', '"'}));
    bodies.put("empty body", "");
    assertThat(bodyRoutes()).contains("POST /api/v1/agents/register", "POST /api/v1/agents/{id}/heartbeat",
        "PUT /api/v1/agents/{id}/settings", "POST /api/v1/agents/{id}/results", "POST /api/v1/quicktest",
        "POST /api/v1/quicktest/{id}/status", "POST /api/v1/campaigns", "PUT /api/v1/settings");
    for (String route : bodyRoutes()) {
      for (Map.Entry<String, Object> body : bodies.entrySet()) {
        if (body.getKey().equals("empty body") && EMPTY_BODY_OK.contains(route)) {
          continue;
        }
        add(out, body.getKey(), method(route), withFixture(route), body.getValue(), 400);
      }
    }
  }

  private void wrongTypesAndMissingFields(List<Arguments> out) {
    HttpMethod post = HttpMethod.POST;
    // registration
    String register = "/api/v1/agents/register";
    JsonObject reg = new JsonObject().put("name", "bad-input-new").put("hostname", "h");
    add(out, "missing name", post, register, new JsonObject().put("hostname", "h"), 400);
    add(out, "missing hostname", post, register, new JsonObject().put("name", "bad-input-new"), 400);
    add(out, "blank name", post, register, reg.copy().put("name", "  "), 400);
    add(out, "name not a string", post, register, reg.copy().put("name", 5), 400);
    add(out, "hostname an array", post, register, reg.copy().put("hostname", new JsonArray()), 400);
    add(out, "port \"abc\"", post, register, reg.copy().put("port", "abc"), 400);
    add(out, "port 70000", post, register, reg.copy().put("port", 70000), 400);
    add(out, "gpu_count \"many\"", post, register, reg.copy().put("gpu_count", "many"), 400);
    add(out, "gpu_count -1", post, register, reg.copy().put("gpu_count", -1), 400);
    add(out, "ram_gb an object", post, register, reg.copy().put("ram_gb", new JsonObject()), 400);
    add(out, "cpu_info a number", post, register, reg.copy().put("cpu_info", 7), 400);
    add(out, "capabilities a string", post, register, reg.copy().put("capabilities", "vllm"), 400);
    add(out, "capabilities of numbers", post, register, reg.copy().put("capabilities", new JsonArray().add(1)), 400);
    add(out, "hardware_details a number", post, register, reg.copy().put("hardware_details", 5), 400);
    add(out, "hardware_details bad JSON text", post, register, reg.copy().put("hardware_details", "{bad"), 400);
    add(out, "hardware_details JSON array text", post, register, reg.copy().put("hardware_details", "[1]"), 400);
    add(out, "name too long", post, register, reg.copy().put("name", "n".repeat(300)), 400);
    add(out, "NUL in name", post, register, reg.copy().put("name", "a\u0000b"), 400);
    // certificate
    String certificate = "/api/v1/agents/certificate";
    add(out, "missing csr", post, certificate, new JsonObject().put("name", "x"), 400);
    add(out, "missing name", post, certificate, new JsonObject().put("csr", "x"), 400);
    add(out, "csr not PEM", post, certificate, new JsonObject().put("csr", "garbage").put("name", "bad-input-csr"), 400);
    // test agents
    String testAgents = "/api/v1/agents/test";
    JsonObject ta = new JsonObject().put("name", "bad-input-sim-2");
    add(out, "missing name", post, testAgents, new JsonObject().put("gpu_count", 1), 400);
    add(out, "gpu_count \"many\"", post, testAgents, ta.copy().put("gpu_count", "many"), 400);
    add(out, "gpu_count 1.5", post, testAgents, ta.copy().put("gpu_count", 1.5), 400);
    add(out, "gpu_count 65", post, testAgents, ta.copy().put("gpu_count", 65), 400);
    add(out, "ram_gb 0", post, testAgents, ta.copy().put("ram_gb", 0), 400);
    add(out, "ram_gb \"abc\"", post, testAgents, ta.copy().put("ram_gb", "abc"), 400);
    add(out, "ram_gb huge", post, testAgents, ta.copy().put("ram_gb", new java.math.BigInteger("9".repeat(30))), 400);
    add(out, "cpu_arch sparc", post, testAgents, ta.copy().put("cpu_arch", "sparc"), 400);
    add(out, "cpu_arch a number", post, testAgents, ta.copy().put("cpu_arch", 64), 400);
    add(out, "gpu_info a list", post, testAgents, ta.copy().put("gpu_info", new JsonArray()), 400);
    // agent resource
    String agent = "/api/v1/agents/" + realAgent;
    add(out, "name not a string", HttpMethod.PATCH, agent, new JsonObject().put("name", 5), 400);
    add(out, "blank name", HttpMethod.PATCH, agent, new JsonObject().put("name", ""), 400);
    add(out, "tags a string", HttpMethod.PATCH, agent, new JsonObject().put("tags", "gpu"), 400);
    add(out, "tags of numbers", HttpMethod.PATCH, agent, new JsonObject().put("tags", new JsonArray().add(1)), 400);
    add(out, "notes a number", HttpMethod.PATCH, agent, new JsonObject().put("notes", 1), 400);
    add(out, "unknown field", HttpMethod.PATCH, agent, new JsonObject().put("status", "online"), 400);
    // heartbeat
    String heartbeat = agent + "/heartbeat";
    add(out, "status not a string", post, heartbeat, new JsonObject().put("status", 5), 400);
    add(out, "status unknown", post, heartbeat, new JsonObject().put("status", "sleeping"), 400);
    add(out, "status offline", post, heartbeat, new JsonObject().put("status", "offline"), 400);
    add(out, "gpu_utilization_pct \"abc\"", post, heartbeat, new JsonObject().put("gpu_utilization_pct", "abc"), 400);
    add(out, "uptime_s a list", post, heartbeat, new JsonObject().put("uptime_s", new JsonArray()), 400);
    add(out, "current_task a number", post, heartbeat, new JsonObject().put("current_task", 5), 400);
    add(out, "storage_gb_free infinite", post, heartbeat, "{\"storage_gb_free\":1e999}", 400);
    // agent settings
    String settings = agent + "/settings";
    HttpMethod put = HttpMethod.PUT;
    add(out, "heartbeat_interval_s 9", put, settings, new JsonObject().put("heartbeat_interval_s", 9), 400);
    add(out, "heartbeat_interval_s 301", put, settings, new JsonObject().put("heartbeat_interval_s", 301), 400);
    add(out, "heartbeat_interval_s \"abc\"", put, settings, new JsonObject().put("heartbeat_interval_s", "abc"), 400);
    add(out, "heartbeat_interval_s 30.5", put, settings, new JsonObject().put("heartbeat_interval_s", 30.5), 400);
    add(out, "heartbeat_interval_s huge", put, settings, "{\"heartbeat_interval_s\":123456789012345678901234}", 400);
    add(out, "heartbeat_interval_s null", put, settings, "{\"heartbeat_interval_s\":null}", 400);
    add(out, "auto_cleanup \"yes\"", put, settings, new JsonObject().put("auto_cleanup", "yes"), 400);
    add(out, "unknown key", put, settings, new JsonObject().put("colour", "blue"), 400);
    add(out, "model_storage_dir relative", put, settings, new JsonObject().put("model_storage_dir", "../../etc"), 400);
    add(out, "model_storage_dir a number", put, settings, new JsonObject().put("model_storage_dir", 5), 400);
    add(out, "model_share_source bad form", put, settings, new JsonObject().put("model_share_source", "no-colon"), 400);
    // cleanup
    String cleanup = agent + "/cleanup";
    add(out, "model_path a number", post, cleanup, new JsonObject().put("model_path", 5), 400);
    add(out, "model_path traversal", post, cleanup, new JsonObject().put("model_path", "../../etc/passwd"), 400);
    add(out, "model_path control character", post, cleanup, new JsonObject().put("model_path", "/models/a\nb"), 400);
    // results submission
    String results = agent + "/results";
    add(out, "missing command_id", post, results, new JsonObject().put("status", "completed"), 400);
    add(out, "command_id a number", post, results, new JsonObject().put("command_id", 5), 400);
    add(out, "test_id a number", post, results, new JsonObject().put("command_id", "c1").put("test_id", 5), 400);
    add(out, "result_data a string", post, results, new JsonObject().put("command_id", "c1").put("result_data", "x"), 400);
    add(out, "result_data a list", post, results,
        new JsonObject().put("command_id", "c1").put("result_data", new JsonArray()), 400);
    add(out, "status running", post, results, new JsonObject().put("command_id", "c1").put("status", "running"), 400);
    add(out, "status a number", post, results, new JsonObject().put("command_id", "c1").put("status", 1), 400);
    add(out, "error a number", post, results, new JsonObject().put("command_id", "c1").put("error", 1), 400);
    add(out, "unknown test_id", post, results, new JsonObject().put("command_id", "c1").put("test_id", UNKNOWN_ID), 404);
    // quick tests
    String quick = "/api/v1/quicktest";
    JsonObject qt = new JsonObject().put("agent_id", testAgent).put("model_path", GOOD_MODEL).put("engine_name", "vllm");
    add(out, "missing agent_id", post, quick, without(qt, "agent_id"), 400);
    add(out, "missing model_path", post, quick, without(qt, "model_path"), 400);
    add(out, "missing engine_name", post, quick, without(qt, "engine_name"), 400);
    add(out, "empty object", post, quick, new JsonObject(), 400);
    add(out, "agent_id a number", post, quick, qt.copy().put("agent_id", 5), 400);
    add(out, "model_path a list", post, quick, qt.copy().put("model_path", new JsonArray().add(GOOD_MODEL)), 400);
    add(out, "engine_name an object", post, quick, qt.copy().put("engine_name", new JsonObject()), 400);
    add(out, "force \"yes\"", post, quick, qt.copy().put("force", "yes"), 400);
    add(out, "force 1", post, quick, qt.copy().put("force", 1), 400);
    add(out, "unknown engine", post, quick, qt.copy().put("engine_name", "warp-drive"), 400);
    add(out, "unknown benchmark", post, quick, qt.copy().put("benchmark_name", "fastest"), 400);
    add(out, "benchmark a number", post, quick, qt.copy().put("benchmark_name", 3), 400);
    add(out, "suite_name with spaces", post, quick, qt.copy().put("suite_name", "a b"), 400);
    add(out, "suite_name a number", post, quick, qt.copy().put("suite_name", 1), 400);
    add(out, "unknown agent", post, quick, qt.copy().put("agent_id", UNKNOWN_ID), 404);
    add(out, "garbage agent id", post, quick, qt.copy().put("agent_id", "not an id"), 404);
    // quick test logs and status
    String logs = quick + "/" + queuedTest + "/logs";
    add(out, "missing line", post, logs, new JsonObject(), 400);
    add(out, "line a number", post, logs, new JsonObject().put("line", 5), 400);
    add(out, "lines a string", post, logs, new JsonObject().put("lines", "x"), 400);
    add(out, "lines of numbers", post, logs, new JsonObject().put("lines", new JsonArray().add(1)), 400);
    add(out, "seq \"abc\"", post, logs, new JsonObject().put("lines", new JsonArray().add("x")).put("seq", "abc"), 400);
    add(out, "seq -1", post, logs, new JsonObject().put("lines", new JsonArray().add("x")).put("seq", -1), 400);
    JsonArray many = new JsonArray();
    for (int i = 0; i < LogBatch.MAX_LINES + 1; i++) {
      many.add("l");
    }
    add(out, "too many lines", post, logs, new JsonObject().put("lines", many), 400);
    add(out, "line too long", post, logs, new JsonObject().put("line", "x".repeat(LogBatch.MAX_LINE_LENGTH + 1)), 400);
    String status = quick + "/" + queuedTest + "/status";
    add(out, "missing status", post, status, new JsonObject().put("error", "x"), 400);
    add(out, "status not a string", post, status, new JsonObject().put("status", 5), 400);
    add(out, "status a list", post, status, new JsonObject().put("status", new JsonArray().add("running")), 400);
    add(out, "status null", post, status, "{\"status\":null}", 400);
    add(out, "status unknown", post, status, new JsonObject().put("status", "exploded"), 400);
    add(out, "status queued", post, status, new JsonObject().put("status", "queued"), 400);
    add(out, "status dispatched", post, status, new JsonObject().put("status", "dispatched"), 400);
    add(out, "error a number", post, status, new JsonObject().put("status", "failed").put("error", 5), 400);
    // campaigns
    String campaigns = "/api/v1/campaigns";
    JsonObject c = campaign("bad-input-c", testAgent, GOOD_MODEL);
    add(out, "missing name", post, campaigns, without(c, "name"), 400);
    add(out, "missing agent_id", post, campaigns, without(c, "agent_id"), 400);
    add(out, "missing config", post, campaigns, without(c, "config"), 400);
    add(out, "config a string", post, campaigns, c.copy().put("config", "x"), 400);
    add(out, "name a number", post, campaigns, c.copy().put("name", 5), 400);
    add(out, "description a list", post, campaigns, c.copy().put("description", new JsonArray()), 400);
    add(out, "models empty", post, campaigns, withConfig(c, "models", new JsonArray()), 400);
    add(out, "models missing", post, campaigns, withConfig(c, "models", null), 400);
    add(out, "models a string", post, campaigns, withConfig(c, "models", "m"), 400);
    add(out, "models of numbers", post, campaigns, withConfig(c, "models", new JsonArray().add(1)), 400);
    add(out, "model path a number", post, campaigns,
        withConfig(c, "models", new JsonArray().add(new JsonObject().put("path", 5))), 400);
    add(out, "model name a number", post, campaigns,
        withConfig(c, "models", new JsonArray().add(new JsonObject().put("path", GOOD_MODEL).put("name", 5))), 400);
    add(out, "engines empty", post, campaigns, withConfig(c, "engines", new JsonArray()), 400);
    add(out, "engines unknown", post, campaigns, withConfig(c, "engines", new JsonArray().add("warp-drive")), 400);
    add(out, "engines of numbers", post, campaigns, withConfig(c, "engines", new JsonArray().add(1)), 400);
    add(out, "engine suite a number", post, campaigns,
        withConfig(c, "engines", new JsonArray().add(new JsonObject().put("name", "vllm").put("suite", 1))), 400);
    add(out, "benchmarks empty", post, campaigns, withConfig(c, "benchmarks", new JsonArray()), 400);
    add(out, "benchmarks unknown", post, campaigns, withConfig(c, "benchmarks", new JsonArray().add("fastest")), 400);
    add(out, "force \"yes\"", post, campaigns, withConfig(c, "force", "yes"), 400);
    add(out, "suite_name a number", post, campaigns, withConfig(c, "suite_name", 7), 400);
    add(out, "unknown agent", post, campaigns, c.copy().put("agent_id", UNKNOWN_ID), 404);
    // results compare
    String compare = "/api/v1/results/compare";
    add(out, "missing ids", post, compare, new JsonObject(), 400);
    add(out, "ids a string", post, compare, new JsonObject().put("ids", "a,b"), 400);
    add(out, "ids of numbers", post, compare, new JsonObject().put("ids", new JsonArray().add(1).add(2)), 400);
    add(out, "one id", post, compare, new JsonObject().put("ids", new JsonArray().add(UNKNOWN_ID)), 400);
    JsonArray tooMany = new JsonArray();
    for (int i = 0; i <= ResultRoutes.MAX_COMPARE; i++) {
      tooMany.add(String.format("%016x", i));
    }
    add(out, "too many ids", post, compare, new JsonObject().put("ids", tooMany), 400);
    add(out, "unknown ids", post, compare,
        new JsonObject().put("ids", new JsonArray().add(UNKNOWN_ID).add("fedcba9876543210")), 404);
    add(out, "traversal ids", post, compare,
        new JsonObject().put("ids", new JsonArray().add("../../etc/passwd").add("%2e%2e%2f")), 404);
    // global settings
    String global = "/api/v1/settings";
    add(out, "unknown key", put, global, new JsonObject().put("colour", "blue"), 400);
    add(out, "model_dir a number", put, global, new JsonObject().put("model_dir", 5), 400);
    add(out, "model_dir relative", put, global, new JsonObject().put("model_dir", "../../etc"), 400);
    add(out, "catalog_url not http", put, global, new JsonObject().put("catalog_url", "file:///etc/passwd"), 400);
    add(out, "catalog_url garbage", put, global, new JsonObject().put("catalog_url", "http://exa mple"), 400);
    add(out, "results_dir a list", put, global, new JsonObject().put("results_dir", new JsonArray()), 400);
    // session
    add(out, "missing token", post, "/api/v1/session", new JsonObject(), 400);
    add(out, "token a number", post, "/api/v1/session", new JsonObject().put("token", 5), 400);
  }

  private static JsonObject without(JsonObject o, String field) {
    JsonObject copy = o.copy();
    copy.remove(field);
    return copy;
  }

  private static JsonObject withConfig(JsonObject c, String field, Object value) {
    JsonObject copy = c.copy();
    if (value == null) {
      copy.getJsonObject("config").remove(field);
    } else {
      copy.getJsonObject("config").put(field, value);
    }
    return copy;
  }

  /** Every {id} route and method, with unknown, garbage and traversal ids → 404. */
  private void unknownIds(List<Arguments> out) {
    assertThat(routes.stream().filter(r -> PARAM.matcher(r).find()).count()).isGreaterThanOrEqualTo(20);
    for (String route : routes) {
      if (!PARAM.matcher(route).find()) {
        continue;
      }
      HttpMethod method = method(route);
      String body = method == HttpMethod.GET || method == HttpMethod.DELETE ? null
          : NO_BODY.contains(route) ? null : VALID_BODY.getOrDefault(route, "{}");
      for (String id : BAD_IDS) {
        add(out, "unknown id", method, PARAM.matcher(template(route)).replaceAll(id), body, 404);
      }
    }
  }

  private void pathTraversal(List<Arguments> out) {
    HttpMethod get = HttpMethod.GET;
    for (String uri : List.of(
        "/api/v1/agents/../../../etc/passwd",
        "/api/v1/quicktest/../../../../etc/passwd",
        "/api/v1/../../etc/passwd",
        "/api/v1/results/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/api/v1/quicktest/%2E%2E/%2E%2E/%2E%2E/%2E%2E/etc/passwd",
        "/api/v1/agent/package/../../../../etc/passwd",
        "/api/v1/agent/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/api/v1/campaigns/..%5c..%5cwindows%5cwin.ini/logs",
        "/api/v1/quicktest/" + queuedTest + "/../../../../../etc/passwd",
        "/api/v1/nope")) {
      add(out, "path traversal", get, uri, null, 404);
    }
    add(out, "path traversal", HttpMethod.POST, "/api/v1/quicktest/../../../etc/passwd/status",
        new JsonObject().put("status", "running"), 404);
    add(out, "path traversal", HttpMethod.DELETE, "/api/v1/results/..%2f..%2f..%2fetc%2fpasswd", null, 404);
    // in body fields
    JsonObject qt = new JsonObject().put("agent_id", testAgent).put("engine_name", "vllm");
    for (String path : List.of("../../etc/passwd", "/models/../../etc/passwd", "..\\..\\windows\\system32",
        "models/..", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/models/%2E%2E/%2E%2E/etc/passwd", "..%2f..%2fetc",
        "/models/llama\u0000.gguf")) {
      add(out, "model_path " + path.replace("\u0000", "NUL"), HttpMethod.POST, "/api/v1/quicktest",
          qt.copy().put("model_path", path), 400);
    }
    add(out, "campaign model path traversal", HttpMethod.POST, "/api/v1/campaigns",
        campaign("bad-input-trav", testAgent, "../../etc/passwd"), 400);
    add(out, "campaign model path encoded traversal", HttpMethod.POST, "/api/v1/campaigns",
        campaign("bad-input-trav", testAgent, "%2e%2e%2f%2e%2e%2fetc%2fpasswd"), 400);
    add(out, "cleanup model_path encoded traversal", HttpMethod.POST, "/api/v1/agents/" + realAgent + "/cleanup",
        new JsonObject().put("model_path", "/models/%2e%2e/%2e%2e/etc"), 400);
    add(out, "suite_name traversal", HttpMethod.POST, "/api/v1/quicktest",
        qt.copy().put("model_path", GOOD_MODEL).put("suite_name", "../../etc"), 400);
    add(out, "engine_name traversal", HttpMethod.POST, "/api/v1/quicktest",
        qt.copy().put("model_path", GOOD_MODEL).put("engine_name", "../../vllm"), 400);
    // in query parameters: filters must just not match
    for (String uri : List.of(
        "/api/v1/quicktest?model=../../etc/passwd",
        "/api/v1/quicktest?model=%2e%2e%2f%2e%2e%2fetc%2fpasswd&agent_name=..%2f..",
        "/api/v1/quicktest?agent_id=../../&engine=%27%20OR%20%271%27%3D%271",
        "/api/v1/results?model=../../&engine=..%2f..&suite_name=%2e%2e%2f&agent_id=../../etc",
        "/api/v1/models?q=../../etc/passwd",
        "/api/v1/campaigns?page=1&per_page=5&unknown=../../")) {
      add(out, "query traversal", get, uri, null, 200);
    }
    add(out, "query traversal in status", get, "/api/v1/campaigns?status=../../etc", null, 400);
    add(out, "query traversal in after", get, "/api/v1/quicktest/" + queuedTest + "/logs?after=../../", null, 400);
    add(out, "query traversal in since", get, "/api/v1/results?since=../../etc/passwd", null, 400);
  }

  private void oversizeBodies(List<Arguments> out) {
    Buffer normal = padded((int) ApiRouter.BODY_LIMIT + 1024);
    String results = "POST /api/v1/agents/{id}/results";
    for (String route : bodyRoutes()) {
      if (route.equals(results)) {
        continue;
      }
      add(out, "body over 1 MiB", method(route), withFixture(route), normal, 413);
    }
    String unknownAgentResults = "/api/v1/agents/" + UNKNOWN_ID + "/results";
    add(out, "1.5 MiB result is accepted (agent unknown)", HttpMethod.POST, unknownAgentResults,
        resultBody((int) (ApiRouter.BODY_LIMIT * 3 / 2)), 404);
    add(out, "body over 16 MiB", HttpMethod.POST, "/api/v1/agents/" + realAgent + "/results",
        resultBody((int) ApiRouter.RESULT_BODY_LIMIT + 1024), 413);
  }

  private static Buffer padded(int size) {
    String head = "{\"pad\":\"";
    String tail = "\"}";
    return Buffer.buffer(head + "x".repeat(size - head.length() - tail.length()) + tail);
  }

  private static Buffer resultBody(int size) {
    String head = "{\"command_id\":\"c-big\",\"result_data\":{\"pad\":\"";
    String tail = "\"}}";
    return Buffer.buffer(head + "x".repeat(size - head.length() - tail.length()) + tail);
  }

  /** Every paginated list (found by asking each GET route without an id) with bad page/per_page → 400. */
  private void badPagination(List<Arguments> out) {
    List<String> lists = paginatedLists();
    assertThat(lists).contains("/api/v1/quicktest", "/api/v1/campaigns", "/api/v1/results", "/api/v1/models");
    for (String list : lists) {
      for (String query : List.of("page=0", "page=-1", "page=abc", "page=1.5", "page=99999999999", "page=%00",
          "per_page=0", "per_page=201", "per_page=-1", "per_page=abc", "per_page=1e3", "page=1&per_page=500")) {
        add(out, "bad pagination", HttpMethod.GET, list + "?" + query, null, 400);
      }
      add(out, "bad pagination, trailing slash", HttpMethod.GET, list + "/?page=0", null, 400);
    }
    add(out, "unknown status filter", HttpMethod.GET, "/api/v1/quicktest?status=sleeping", null, 400);
    add(out, "unknown status filter", HttpMethod.GET, "/api/v1/campaigns?status=sleeping", null, 400);
    add(out, "bad since", HttpMethod.GET, "/api/v1/results?since=yesterday", null, 400);
    add(out, "bad until", HttpMethod.GET, "/api/v1/results?until=2026-13-45", null, 400);
    add(out, "bad after", HttpMethod.GET, "/api/v1/quicktest/" + queuedTest + "/logs?after=abc", null, 400);
    add(out, "negative after", HttpMethod.GET, "/api/v1/quicktest/" + queuedTest + "/logs?after=-1", null, 400);
    add(out, "bad after", HttpMethod.GET, "/api/v1/campaigns/" + draftCampaign + "/logs?after=1.5", null, 400);
  }

  private List<String> paginatedLists() {
    List<String> lists = new ArrayList<>();
    for (String route : routes) {
      if (!route.startsWith("GET ") || PARAM.matcher(route).find() || route.startsWith("GET /api/v1/events")) {
        continue;
      }
      String path = template(route);
      HttpResponse<Buffer> response = send(server.client(), HttpMethod.GET, path, null, null);
      String type = response.getHeader("Content-Type");
      if (response.statusCode() == 200 && type != null && type.startsWith("application/json")) {
        Object body = Json.decodeValue(response.body());
        if (body instanceof JsonObject && ((JsonObject) body).containsKey("items")
            && ((JsonObject) body).containsKey("per_page")) {
          lists.add(path);
        }
      }
    }
    return lists;
  }

  private void illegalTransitions(List<Arguments> out) {
    HttpMethod post = HttpMethod.POST;
    String quick = "/api/v1/quicktest/";
    add(out, "completed → running", post, quick + completedTest + "/status", new JsonObject().put("status", "running"), 409);
    add(out, "completed → failed", post, quick + completedTest + "/status", new JsonObject().put("status", "failed"), 409);
    add(out, "cancelled → running", post, quick + cancelledTest + "/status", new JsonObject().put("status", "running"), 409);
    add(out, "cancelled → completed", post, quick + cancelledTest + "/status",
        new JsonObject().put("status", "completed"), 409);
    add(out, "queued → completed", post, quick + queuedTest + "/status", new JsonObject().put("status", "completed"), 409);
    add(out, "cancel of a completed test", post, quick + completedTest + "/cancel", null, 409);
    add(out, "cancel of a cancelled test", post, quick + cancelledTest + "/cancel", null, 409);
    add(out, "launch of a queued campaign", post, "/api/v1/campaigns/" + queuedCampaign + "/launch", null, 409);
    add(out, "cancel of a draft campaign", post, "/api/v1/campaigns/" + draftCampaign + "/cancel", null, 409);
    add(out, "rotate-token of a test agent", post, "/api/v1/agents/" + testAgent + "/rotate-token", null, 409);
    add(out, "cleanup of a test agent", post, "/api/v1/agents/" + testAgent + "/cleanup", new JsonObject(), 409);
    add(out, "test agent with a taken name", post, "/api/v1/agents/test", new JsonObject().put("name", testAgentName), 409);
    add(out, "rename to a taken name", HttpMethod.PATCH, "/api/v1/agents/" + realAgent,
        new JsonObject().put("name", testAgentName), 409);
    add(out, "login without a server token", post, "/api/v1/session", new JsonObject().put("token", "x"), 409);
  }

  private void authAndIncompatible(List<Arguments> out) {
    HttpMethod post = HttpMethod.POST;
    MultiMap basic = MultiMap.caseInsensitiveMultiMap().add("Authorization", "Basic YTpi");
    MultiMap noBearer = MultiMap.caseInsensitiveMultiMap();
    MultiMap wrongBearer = MultiMap.caseInsensitiveMultiMap().add("Authorization", "Bearer " + WRONG_TOKEN);
    MultiMap crossSite = MultiMap.caseInsensitiveMultiMap().add("Origin", "https://evil.example");
    JsonObject qt = new JsonObject().put("agent_id", testAgent).put("model_path", GOOD_MODEL).put("engine_name", "vllm");
    add(out, "malformed Authorization", HttpMethod.GET, "/api/v1/quicktest", null, 401, false, basic);
    add(out, "malformed Authorization", post, "/api/v1/quicktest", qt, 401, false, basic);
    add(out, "cross-site without CSRF token", post, "/api/v1/quicktest", qt, 403, false, crossSite);
    add(out, "cross-site without CSRF token", HttpMethod.DELETE, "/api/v1/agents/" + realAgent, null, 403, false,
        crossSite);
    out.add(Arguments.of(Named.of("POST /api/v1/agents/register without client certificate",
        new Case(post, "/api/v1/agents/register", new JsonObject().put("name", "bad-input-nocert").put("hostname", "h"),
            403, false, null))));
    out.add(Arguments.of(Named.of("POST /api/v1/agents/{id}/heartbeat without client certificate",
        new Case(post, "/api/v1/agents/" + realAgent + "/heartbeat", new JsonObject(), 403, false, null))));
    String tokened = "/api/v1/agents/" + tokenAgent;
    add(out, "bound agent without token", post, tokened + "/heartbeat", new JsonObject(), 401, true, noBearer);
    add(out, "bound agent with wrong token", post, tokened + "/heartbeat", new JsonObject(), 403, true, wrongBearer);
    add(out, "bound agent without token", post, tokened + "/results", new JsonObject().put("command_id", "c9"), 401,
        true, noBearer);
    add(out, "bound agent with wrong token", post, tokened + "/results", new JsonObject().put("command_id", "c9"), 403,
        true, wrongBearer);
    add(out, "bound name without token", post, "/api/v1/agents/register",
        new JsonObject().put("name", "bad-input-tokened").put("hostname", "h"), 401, true, noBearer);
    add(out, "bound name with wrong token", post, "/api/v1/agents/register",
        new JsonObject().put("name", "bad-input-tokened").put("hostname", "h"), 403, true, wrongBearer);
    add(out, "result for another agent's test", post, "/api/v1/agents/" + realAgent + "/results",
        new JsonObject().put("command_id", "c-other").put("test_id", simulatedTest), 403);
    // incompatible model or platform
    add(out, "gguf on vllm", post, "/api/v1/quicktest", qt.copy().put("model_path", "/models/llama-3-8b.Q4_K_M.gguf"), 422);
    add(out, "safetensors on llama_cpp", post, "/api/v1/quicktest",
        qt.copy().put("model_path", "/models/model.safetensors").put("engine_name", "llama_cpp"), 422);
    add(out, "tgi on arm64", post, "/api/v1/quicktest", qt.copy().put("agent_id", armAgent).put("engine_name", "tgi"), 422);
    add(out, "campaign gguf on vllm", post, "/api/v1/campaigns",
        campaign("bad-input-gguf", testAgent, "/models/llama.gguf"), 422);
    // methods and routes that do not exist
    add(out, "method not allowed", HttpMethod.PUT, "/api/v1/quicktest", new JsonObject(), 405);
    add(out, "method not allowed", HttpMethod.DELETE, "/api/v1/quicktest/" + queuedTest, null, 405);
  }

  /** Requests the web client would not send as they are: other content types, broken escapes, huge URIs. */
  private void rawRequests(List<Arguments> out) {
    String quick = "/api/v1/quicktest";
    JsonObject qt = new JsonObject().put("agent_id", testAgent).put("model_path", GOOD_MODEL).put("engine_name", "vllm");
    raw(out, "as text/plain", HttpMethod.POST, quick, "{bad", 400, "text/plain");
    raw(out, "as a form", HttpMethod.POST, quick, "agent_id=" + testAgent + "&model_path=/m&engine_name=vllm", 400,
        "application/x-www-form-urlencoded");
    raw(out, "as multipart", HttpMethod.POST, quick,
        "--xyz\r\nContent-Disposition: form-data; name=\"agent_id\"\r\n\r\n" + testAgent + "\r\n--xyz--\r\n", 400,
        "multipart/form-data; boundary=xyz");
    raw(out, "broken percent escape in id", HttpMethod.GET, quick + "/%zz", null, 400, null);
    raw(out, "broken percent escape in query", HttpMethod.GET, quick + "?page=%zz", null, 400, null);
    raw(out, "very long id", HttpMethod.GET, quick + "/" + "x".repeat(3000), null, 404, null);
  }

  private void raw(List<Arguments> out, String label, HttpMethod method, String uri, Object body, int expected,
      String contentType) {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    if (contentType != null) {
      headers.add("Content-Type", contentType);
    }
    out.add(Arguments.of(Named.of(method + " " + shorten(uri) + " " + label,
        new Case(method, uri, body, expected, false, headers, true))));
  }

  // ---------------------------------------------------------------------------------------------
  // the tests

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badInputGetsTheDocumentedStatusAndAJsonError(Case c) {
    if (c.raw()) {
      try (BadInputHttp http = BadInputHttp.of(server, null)) {
        BadInputHttp.Reply reply = http.send(c.method(), c.uri(), c.body(), c.headers());
        assertThat(reply.status()).as("%s: status (body %s)", c, abbreviate(reply.body())).isEqualTo(c.expected());
        assertJsonReply(c.toString(), reply.status(), reply.contentType(), reply.body());
      }
      return;
    }
    HttpResponse<Buffer> response = TestServer.send(clientFor(c), c.method(), c.uri(),
        null, c.body(), c.headers() == null ? MultiMap.caseInsensitiveMultiMap() : c.headers());
    String body = response.bodyAsString();
    assertThat(response.statusCode()).as("%s: status (body %s)", c, abbreviate(body)).isEqualTo(c.expected());
    assertJsonReply(c.toString(), response.statusCode(), response.getHeader("Content-Type"), body);
  }

  /** Every route of the server, with an unknown id and a garbage, an empty-object and no body: never a 500. */
  @Test
  void everyRouteAnswersGarbageWithoutAServerFault() {
    assertThat(routes).hasSizeGreaterThan(30);
    sweep(server, "bad-input-sweep", null);
    sweep(authServer, null, null);
    sweep(authServer, null, "wrong-token");
  }

  private void sweep(TestServer target, String agentName, String token) {
    List<String> problems = new ArrayList<>();
    try (BadInputHttp http = BadInputHttp.of(target, agentName)) {
      MultiMap headers = MultiMap.caseInsensitiveMultiMap();
      if (token != null) {
        headers.add("Authorization", "Bearer " + token);
      }
      for (String route : new LinkedHashSet<>(target.running().routes())) {
        HttpMethod method = method(route);
        String path = PARAM.matcher(template(route)).replaceAll(UNKNOWN_ID);
        List<Object> bodies = method == HttpMethod.GET || method == HttpMethod.HEAD ? List.of("", "%")
            : java.util.Arrays.asList("{bad", "{}", "[]", null, "%");
        for (Object body : bodies) {
          // "" and "%" stand for no body with bad query parameters, and with a broken escape in the query
          String uri = "".equals(body) ? path + "?page=0&per_page=abc&after=x&since=never"
              : "%".equals(body) ? path + "?page=%zz" : path;
          Object sent = "".equals(body) || "%".equals(body) ? null : body;
          BadInputHttp.Reply reply = http.send(method, uri, sent, headers);
          String label = route + " body=" + sent + " on " + (target == server ? "server" : "auth server")
              + " → " + reply.status();
          if (reply.status() >= 500) {
            problems.add(label + " " + abbreviate(reply.body()));
            continue;
          }
          if (!path.startsWith("/api/")) {
            // dashboard pages and static files answer HTML or files, not JSON: only "no 500" applies
            if (reply.body() != null && (reply.body().contains("at dev.svc") || reply.body().contains("at io.vertx"))) {
              problems.add(label + ": stack trace in the body");
            }
            continue;
          }
          try {
            if (reply.status() >= 400 || !"application/gzip".equals(reply.contentType())) {
              // an event stream, and the metrics in Prometheus' text format, are not JSON when they succeed
              if (reply.contentType() != null && (reply.contentType().startsWith("text/event-stream")
                  || reply.status() == 200 && reply.contentType().startsWith("text/plain; version=0.0.4"))) {
                continue;
              }
              assertJsonReply(label, reply.status(), reply.contentType(), reply.body());
            }
          } catch (AssertionError e) {
            problems.add(e.getMessage());
          }
        }
      }
    }
    assertThat(problems).as("routes that answered garbage badly").isEmpty();
  }

  /** The reply is JSON (an object with a non-empty "error" string for 4xx), with no HTML and no stack trace. */
  private static void assertJsonReply(String label, int status, String contentType, String body) {
    assertThat(contentType).as("%s: Content-Type", label).isNotNull().startsWith("application/json");
    String lower = body.toLowerCase(Locale.ROOT);
    assertThat(lower).as("%s: no HTML", label).doesNotContain("<html").doesNotContain("<!doctype");
    assertThat(body).as("%s: no stack trace", label).doesNotContain("Exception").doesNotContain("at dev.svc")
        .doesNotContain("at io.vertx");
    Object json;
    try {
      json = Json.decodeValue(Buffer.buffer(body.getBytes(StandardCharsets.UTF_8)));
    } catch (DecodeException e) {
      fail(label + ": body is not JSON: " + abbreviate(body));
      return;
    }
    if (status >= 400) {
      assertThat(json).as("%s: error body is an object: %s", label, abbreviate(body)).isInstanceOf(JsonObject.class);
      Object error = ((JsonObject) json).getValue("error");
      assertThat(error).as("%s: \"error\" is a string: %s", label, abbreviate(body)).isInstanceOf(String.class);
      assertThat((String) error).as("%s: \"error\" is not blank", label).isNotBlank();
    }
  }

  private static String abbreviate(String s) {
    return s == null ? "null" : s.length() > 300 ? s.substring(0, 300) + "…" : s;
  }
}
