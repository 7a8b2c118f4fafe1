package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An agent deleted on a server with a global token comes back under a new id when it next
 * registers with the token the server issued it (protocol.md §2.2: a 404 makes the agent
 * re-register); a token the server never issued for that name, or one rotated away, does not.
 */
class AgentReRegistrationTest {

  static final String GLOBAL = "global-token-for-re-registration";

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.insecure().authToken(GLOBAL));

  private static JsonObject registration(String name) {
    return new JsonObject().put("name", name).put("hostname", name + ".local").put("port", 8090);
  }

  @Test
  void aDeletedAgentReRegistersWithItsIssuedTokenUnderANewId() {
    TestServer server = servers.start();
    JsonObject issued = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-7")).bodyAsJsonObject();
    String token = issued.getString("token");
    assertThat(server.post("/api/v1/agents/register", token, registration("gpu-7")).statusCode()).isEqualTo(201);
    String oldId = issued.getString("agent_id");
    assertThat(server.delete("/api/v1/agents/" + oldId, GLOBAL).statusCode()).isEqualTo(200);

    HttpResponse<Buffer> heartbeat = server.post("/api/v1/agents/" + oldId + "/heartbeat", token, new JsonObject());
    assertThat(heartbeat.statusCode()).isEqualTo(404);
    HttpResponse<Buffer> again = server.post("/api/v1/agents/register", token, registration("gpu-7"));
    assertThat(again.statusCode()).as(again.bodyAsString()).isEqualTo(201);
    String newId = again.bodyAsJsonObject().getString("agent_id");
    assertThat(newId).isNotEqualTo(oldId);
    assertThat(server.post("/api/v1/agents/" + newId + "/heartbeat", token, new JsonObject()).statusCode()).isEqualTo(200);
    assertThat(server.get("/api/v1/agents/" + newId, GLOBAL).bodyAsJsonObject().getString("name")).isEqualTo("gpu-7");
  }

  @Test
  void aTokenNeverIssuedForTheNameOrRotatedAwayDoesNotBringItBack() {
    TestServer server = servers.start();
    String otherToken = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-9")).bodyAsJsonObject()
        .getString("token");
    JsonObject issued = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-8")).bodyAsJsonObject();
    String id = issued.getString("agent_id");
    String oldToken = issued.getString("token");
    String rotated = server.post("/api/v1/agents/" + id + "/rotate-token", GLOBAL, new JsonObject()).bodyAsJsonObject()
        .getString("token");
    assertThat(server.delete("/api/v1/agents/" + id, GLOBAL).statusCode()).isEqualTo(200);

    assertThat(server.post("/api/v1/agents/register", oldToken, registration("gpu-8")).statusCode()).isEqualTo(403);
    assertThat(server.post("/api/v1/agents/register", otherToken, registration("gpu-8")).statusCode()).isEqualTo(403);
    assertThat(server.post("/api/v1/agents/register", "c".repeat(64), registration("gpu-8")).statusCode()).isEqualTo(403);
    assertThat(server.post("/api/v1/agents/register", rotated, registration("gpu-8")).statusCode()).isEqualTo(201);
  }
}
