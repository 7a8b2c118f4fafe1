package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Names of live agents are unique, by the database's own index: concurrent creations of one name
 * make one agent and tell the others 409 (registrations of one name become one agent), a rename
 * onto a taken name is 409, and no agent may be named after another agent's id (heartbeats and
 * result reports find an agent by either).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgentNamesTest {

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.insecure());

  @Test
  void tenConcurrentCreationsOfOneNameMakeOneAgent() throws Exception {
    TestServer server = servers.start();
    for (String path : List.of("/api/v1/agents/test", "/api/v1/agents")) {
      String name = "twin" + path.length();
      List<HttpResponse<Buffer>> replies = TestServer.concurrently(10,
          i -> server.client().post(path).sendJsonObject(new JsonObject().put("name", name)));
      assertThat(replies).extracting(HttpResponse::statusCode).as(path).containsOnly(201, 409);
      assertThat(replies).filteredOn(r -> r.statusCode() == 201).as(path).hasSize(1);
      replies.stream().filter(r -> r.statusCode() == 409).forEach(r ->
          assertThat(r.bodyAsJsonObject().getString("error")).contains("already exists"));
      assertThat(agentsNamed(server, name)).as(path).hasSize(1);
    }
  }

  @Test
  void concurrentRegistrationsOfOneNameBecomeOneAgent() throws Exception {
    TestServer server = servers.start();
    List<HttpResponse<Buffer>> replies = TestServer.concurrently(10, i -> server.client().post("/api/v1/agents/register")
        .sendJsonObject(new JsonObject().put("name", "gpu-1").put("hostname", "gpu-1.lab")));
    assertThat(replies).extracting(HttpResponse::statusCode).containsOnly(201);
    assertThat(replies).extracting(r -> r.bodyAsJsonObject().getString("agent_id")).containsOnly(
        replies.get(0).bodyAsJsonObject().getString("agent_id"));
    assertThat(agentsNamed(server, "gpu-1")).hasSize(1);
  }

  @Test
  void aRenameOntoATakenNameIsAConflict() {
    TestServer server = servers.start();
    server.post("/api/v1/agents/test", new JsonObject().put("name", "first"));
    String second = server.post("/api/v1/agents/test", new JsonObject().put("name", "second")).bodyAsJsonObject()
        .getString("id");
    HttpResponse<Buffer> renamed = TestServer.send(server.client(), HttpMethod.PATCH, "/api/v1/agents/" + second, null,
        new JsonObject().put("name", "first"));
    assertThat(renamed.statusCode()).isEqualTo(409);
    assertThat(agentsNamed(server, "first")).hasSize(1);
  }

  @Test
  void noAgentMayBeNamedAfterAnotherAgentsId() {
    TestServer server = servers.start();
    String id = server.post("/api/v1/agents/test", new JsonObject().put("name", "original")).bodyAsJsonObject()
        .getString("id");
    for (String path : List.of("/api/v1/agents/test", "/api/v1/agents")) {
      HttpResponse<Buffer> impostor = server.post(path, new JsonObject().put("name", id));
      assertThat(impostor.statusCode()).as(path).isEqualTo(409);
      assertThat(impostor.bodyAsJsonObject().getString("error")).as(path).contains("id of another agent");
    }
    HttpResponse<Buffer> registered = server.post("/api/v1/agents/register",
        new JsonObject().put("name", id).put("hostname", "h"));
    assertThat(registered.statusCode()).isEqualTo(409);
    assertThat(server.get("/api/v1/agents").bodyAsJsonArray()).hasSize(1);
  }

  private static List<JsonObject> agentsNamed(TestServer server, String name) {
    JsonArray agents = server.get("/api/v1/agents").bodyAsJsonArray();
    return agents.stream().map(a -> (JsonObject) a).filter(a -> name.equals(a.getString("name"))).toList();
  }
}
