package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import dev.svc.server.json.BoundedJson;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Deeply nested JSON: refused at every way in (API bodies, metrics.json files) with the limit named,
 * and a deep document already stored (a row from before the limit) takes no reader down.
 */
class ResultNestingTest {

  /** What the attack used: deeper than Jackson's own limit would let pass (1000) is refused anyway. */
  private static final int DEEP = 850;

  @RegisterExtension
  final TestServers servers = new TestServers(TestServer.Options::insecure);

  /** {@code {"results":[{"test_name":"throughput","metrics":{"n":{"n":…{"n":1}…}}}]}} as text, nested {@code depth} levels. */
  private static String nested(int depth) {
    StringBuilder open = new StringBuilder();
    StringBuilder close = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      open.append("{\"n\":");
      close.append('}');
    }
    return open + "1" + close;
  }

  private static String metricsJson(String model, int depth) {
    return "{\"model\":\"" + model + "\",\"engine\":\"vllm\",\"suite_name\":\"quick\",\"passed\":true,"
        + "\"timestamp\":\"2026-11-22T10:00:00.000Z\",\"results\":[{\"test_name\":\"throughput\",\"passed\":true,"
        + "\"metrics\":{\"output_token_throughput\":12.5,\"deep\":" + nested(depth) + "}}]}";
  }

  private static String agent(TestServer server) {
    return server.post("/api/v1/agents/register", new JsonObject().put("name", "deep-node").put("hostname", "deep"))
        .bodyAsJsonObject().getString("agent_id");
  }

  private static HttpResponse<Buffer> report(TestServer server, String agentId, String commandId, String resultData) {
    String body = "{\"command_id\":\"" + commandId + "\",\"status\":\"completed\",\"result_data\":" + resultData + "}";
    return server.post("/api/v1/agents/" + agentId + "/results", Buffer.buffer(body));
  }

  @Test
  void aResultNestedDeeperThanTheLimitIsRefusedWith400NamingIt() {
    TestServer server = servers.start();
    String agentId = agent(server);

    HttpResponse<Buffer> deep = report(server, agentId, "c-deep", metricsJson("deep", DEEP));
    assertThat(deep.statusCode()).as(deep.bodyAsString()).isEqualTo(400);
    assertThat(deep.getHeader("Content-Type")).startsWith("application/json");
    assertThat(deep.bodyAsJsonObject().getString("error")).contains(String.valueOf(BoundedJson.MAX_DEPTH));

    // the whole body counts: result_data is level 2, its metrics level 5
    HttpResponse<Buffer> atLimit = report(server, agentId, "c-ok", metricsJson("ok", BoundedJson.MAX_DEPTH - 5));
    assertThat(atLimit.statusCode()).as(atLimit.bodyAsString()).isEqualTo(202);
    HttpResponse<Buffer> justOver = report(server, agentId, "c-over", metricsJson("over", BoundedJson.MAX_DEPTH - 4));
    assertThat(justOver.statusCode()).as(justOver.bodyAsString()).isEqualTo(400);

    HttpResponse<Buffer> list = server.get("/api/v1/results");
    assertThat(list.statusCode()).as(list.bodyAsString()).isEqualTo(200);
    assertThat(list.bodyAsJsonObject().getJsonArray("items")).extracting(o -> ((JsonObject) o).getString("model"))
        .containsExactly("ok");
    assertThat(server.get("/results").statusCode()).isEqualTo(200);
  }

  @Test
  void everyJsonBodyOfTheApiIsBoundedTheSameWay() {
    TestServer server = servers.start();
    String deepArray = "[".repeat(DEEP) + "]".repeat(DEEP);
    for (String route : List.of("/api/v1/quicktest", "/api/v1/campaigns", "/api/v1/agents/register",
        "/api/v1/results/compare")) {
      HttpResponse<Buffer> answer = server.post(route, Buffer.buffer("{\"x\":" + deepArray + "}"));
      assertThat(answer.statusCode()).as(route + ": " + answer.bodyAsString()).isEqualTo(400);
      assertThat(answer.bodyAsJsonObject().getString("error")).as(route)
          .contains("nested deeper than " + BoundedJson.MAX_DEPTH);
    }
    HttpResponse<Buffer> settings = TestServer.send(server.client(), HttpMethod.PUT, "/api/v1/settings", null,
        Buffer.buffer("{\"model_dir\":" + nested(DEEP) + "}"));
    assertThat(settings.statusCode()).isEqualTo(400);
    assertThat(settings.bodyAsJsonObject().getString("error")).contains(String.valueOf(BoundedJson.MAX_DEPTH));
  }

  @Test
  void aDeepMetricsFileIsSkippedWithALogLineAndTheOthersAreIndexed() throws Exception {
    Path results = servers.results();
    Files.createDirectories(results.resolve("deep"));
    Files.createDirectories(results.resolve("fine"));
    Files.writeString(results.resolve("deep/metrics.json"), metricsJson("deep-file", DEEP));
    Files.writeString(results.resolve("fine/metrics.json"), metricsJson("fine-file", 3));
    TestServer server = servers.start();

    JsonObject list = server.get("/api/v1/results").bodyAsJsonObject();
    assertThat(list.getJsonArray("items")).extracting(o -> ((JsonObject) o).getString("model"))
        .containsExactly("fine-file");
    assertThat(server.get("/results").statusCode()).isEqualTo(200);
  }

  @Test
  void aDeepRowStoredBeforeTheLimitTakesNoReaderDown() {
    TestServer server = servers.start();
    String fine = insertRow(server, "fine-row", metricsJson("fine-row", 3));
    String deep = insertRow(server, "deep-row", metricsJson("deep-row", DEEP));
    String deeper = insertRow(server, "deeper-row", metricsJson("deeper-row", 5_000)); // beyond Jackson's own limit

    HttpResponse<Buffer> list = server.get("/api/v1/results");
    assertThat(list.statusCode()).as(list.bodyAsString()).isEqualTo(200);
    assertThat(list.bodyAsJsonObject().getJsonArray("items")).hasSize(3);
    for (String id : List.of(deep, deeper)) {
      HttpResponse<Buffer> one = server.get("/api/v1/results/" + id);
      assertThat(one.statusCode()).as(one.bodyAsString()).isEqualTo(200);
      assertThat(one.bodyAsJsonObject().getString("id")).isEqualTo(id);
      HttpResponse<Buffer> compare = server.post("/api/v1/results/compare",
          new JsonObject().put("ids", new JsonArray().add(fine).add(id)));
      assertThat(compare.statusCode()).as(compare.bodyAsString()).isEqualTo(200);
      for (String page : List.of("/results/" + id, "/results/compare?ids=" + fine + "," + id,
          "/results/" + id + "/export.json", "/results/" + id + "/export.csv",
          "/results/export.json?ids=" + fine + "," + id, "/results/export.csv?ids=" + fine + "," + id)) {
        HttpResponse<Buffer> answer = server.get(page);
        assertThat(answer.statusCode()).as(page + ": " + answer.bodyAsString()).isEqualTo(200);
      }
    }
    for (String page : List.of("/", "/results", "/results/export.json", "/results/export.csv")) {
      HttpResponse<Buffer> answer = server.get(page);
      assertThat(answer.statusCode()).as(page).isEqualTo(200);
    }
  }

  /** A results row written straight into the database, as a server before the limit would have stored it. */
  private static String insertRow(TestServer server, String model, String data) {
    String id = dev.svc.core.Ids.newId();
    server.running().database().pool().preparedQuery("INSERT INTO results (id, model, engine, suite_name, timestamp,"
        + " passed, data, created_at) VALUES (?, ?, 'vllm', 'quick', ?, 1, ?, ?)")
        .execute(Tuple.of(id, model, "2026-11-22T10:00:0" + (model.length() % 10) + ".000Z", data,
            "2026-11-22T10:00:00.000Z")).await();
    return id;
  }
}
