package dev.svc.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The server-rendered pages: fleet counts, latest results, the agent list and detail, escaping. */
class DashboardPagesTest {

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  private String createTestAgent(String name) {
    HttpResponse<Buffer> created = servers.server().post("/api/v1/agents/test", new JsonObject().put("name", name)
        .put("gpu_info", "NVIDIA H100 80GB HBM3").put("gpu_count", 2).put("cpu_arch", "x86_64"));
    assertThat(created.statusCode()).as(created.bodyAsString()).isBetween(200, 201);
    return created.bodyAsJsonObject().getString("id");
  }

  private String registerAgent(String name) {
    HttpResponse<Buffer> registered = servers.server().post("/api/v1/agents/register",
        new JsonObject().put("name", name).put("hostname", name + ".lab"));
    assertThat(registered.statusCode()).as(registered.bodyAsString()).isBetween(200, 201);
    return registered.bodyAsJsonObject().getString("id", registered.bodyAsJsonObject().getString("agent_id"));
  }

  private String page(String path) {
    HttpResponse<Buffer> response = servers.server().get(path);
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    assertThat(response.getHeader("Content-Type")).startsWith("text/html");
    return response.bodyAsString();
  }

  @Test
  void homeShowsFleetCountsAndLatestResults() throws IOException {
    Path run = servers.results().resolve("run-1/metrics.json");
    Files.createDirectories(run.getParent());
    Files.writeString(run, new JsonObject().put("model", "llama-3-8b-instruct").put("engine", "vllm")
        .put("suite_name", "quick").put("timestamp", "2026-03-10T10:00:00.000Z")
        .put("results", new JsonArray().add(new JsonObject().put("test_name", "throughput").put("passed", true)
            .put("metrics", new JsonObject().put("avg_tps", 123.45)))).encode());
    servers.start();
    createTestAgent("sim-one");
    registerAgent("gpu-box-7");

    String html = page("/");
    assertThat(html).contains("Fleet at a glance");
    assertThat(stat(html, "stat-online")).isEqualTo("2");
    assertThat(stat(html, "stat-offline")).isEqualTo("0");
    assertThat(stat(html, "stat-running")).isEqualTo("0");
    assertThat(stat(html, "stat-inflight")).isEqualTo("0");
    assertThat(html).contains("llama-3-8b-instruct", "vllm", "quick", "avg_tps 123.45");
    assertThat(html).as("a single node lists no cluster nodes").doesNotContain("cluster-nodes");
  }

  @Test
  void agentsPageShowsTestBadge() {
    servers.start();
    String sim = createTestAgent("sim-two");
    String real = registerAgent("real-box");

    String html = page("/agents");
    assertThat(html).contains("data-live-agents");
    String simRow = row(html, sim);
    String realRow = row(html, real);
    assertThat(simRow).contains("sim-two", "TEST", "href=\"/agents/" + sim + "\"", "NVIDIA H100 80GB HBM3", "amd64");
    assertThat(realRow).contains("real-box", "href=\"/agents/" + real + "\"").doesNotContain("TEST");

    String detail = page("/agents/" + sim);
    assertThat(detail).contains("sim-two", "TEST", "Hardware", "Heartbeat", "NVIDIA H100 80GB HBM3");
  }

  @Test
  void valuesAreHtmlEscaped() {
    servers.start();
    String id = createTestAgent("<script>x</script>");
    for (String path : new String[] {"/agents", "/agents/" + id}) {
      String html = page(path);
      assertThat(html).as(path).doesNotContain("<script>x</script>").contains("&lt;script&gt;x&lt;/script&gt;");
    }
  }

  @Test
  void unknownAgentPageIs404Html() {
    TestServer server = servers.start();
    HttpResponse<Buffer> response = server.get("/agents/no-such-agent");
    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.getHeader("Content-Type")).startsWith("text/html");
    assertThat(response.bodyAsString()).contains("Not found", "no-such-agent", "<nav");
  }

  @Test
  void pagesCarryTheSessionsCsrfToken() {
    TestServer server = servers.start();
    HttpResponse<Buffer> response = server.get("/");
    assertThat(response.cookies()).anyMatch(c -> c.startsWith("svc_session=") && c.toLowerCase().contains("httponly")
        && c.contains("SameSite=Strict"));
    assertThat(response.bodyAsString()).containsPattern("<meta name=\"csrf-token\" content=\"[0-9a-f]{64}\">");
  }

  @Test
  void debugModeTurnsCachingOff() {
    TestServer server = servers.start(new TestServer.Options().debug());
    assertThat(page("/")).contains("Fleet at a glance");
    assertThat(page("/agents")).contains("No agents registered yet.");
    HttpResponse<Buffer> js = server.get("/static/app.js");
    assertThat(js.statusCode()).isEqualTo(200);
    assertThat(js.getHeader("Cache-Control")).as("static files are not cached in debug mode")
        .satisfiesAnyOf(v -> assertThat(v).isNull(), v -> assertThat(v).doesNotContain("max-age=3600"));
  }

  /** The number in the stat card with the given id. */
  private static String stat(String html, String id) {
    int at = html.indexOf("id=\"" + id + "\"");
    assertThat(at).as(id).isPositive();
    int start = html.indexOf("<span class=\"num\">", at) + "<span class=\"num\">".length();
    return html.substring(start, html.indexOf("</span>", start));
  }

  /** The table row of one agent. */
  private static String row(String html, String agentId) {
    int at = html.indexOf("data-agent-id=\"" + agentId + "\"");
    assertThat(at).as("row of " + agentId).isPositive();
    return html.substring(at, html.indexOf("</tr>", at));
  }
}
