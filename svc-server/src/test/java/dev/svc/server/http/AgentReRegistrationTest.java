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
 * The protocol's 404 recovery (protocol.md §2.2): an agent whose id the server does not know (its
 * row was lost) gets 404 on its heartbeat and registers again under a new id. An agent an operator
 * deleted is not such an agent: its token is revoked, and a token the server never issued for that
 * name does not bring it back either; provisioning the name again does.
 */
class AgentReRegistrationTest {

  static final String GLOBAL = "global-token-for-re-registration";

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.insecure().authToken(GLOBAL));

  @RegisterExtension
  final TestServers openServers = new TestServers(o -> o.insecure());

  private static JsonObject registration(String name) {
    return new JsonObject().put("name", name).put("hostname", name + ".local").put("port", 8090);
  }

  @Test
  void anAgentWhoseRowWasLostReRegistersUnderANewIdAfterA404() {
    TestServer server = openServers.start();
    // the agent holds an id and a token from before the server lost its row
    String token = "token-the-server-no-longer-knows";
    String lostId = "0123456789abcdef0123456789abcdef";
    HttpResponse<Buffer> heartbeat = server.post("/api/v1/agents/" + lostId + "/heartbeat", token, new JsonObject());
    assertThat(heartbeat.statusCode()).isEqualTo(404);
    assertThat(heartbeat.bodyAsJsonObject().getString("error")).contains("register again");
    HttpResponse<Buffer> again = server.post("/api/v1/agents/register", token, registration("gpu-7"));
    assertThat(again.statusCode()).as(again.bodyAsString()).isEqualTo(201);
    String newId = again.bodyAsJsonObject().getString("agent_id");
    assertThat(newId).isNotEqualTo(lostId);
    assertThat(server.post("/api/v1/agents/" + newId + "/heartbeat", token, new JsonObject()).statusCode()).isEqualTo(200);
  }

  @Test
  void aDeletedAgentComesBackOnlyWithANewlyIssuedToken() {
    TestServer server = servers.start();
    String otherToken = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-9")).bodyAsJsonObject()
        .getString("token");
    JsonObject issued = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-8")).bodyAsJsonObject();
    String id = issued.getString("agent_id");
    String oldToken = issued.getString("token");
    String rotated = server.post("/api/v1/agents/" + id + "/rotate-token", GLOBAL, new JsonObject()).bodyAsJsonObject()
        .getString("token");
    assertThat(server.post("/api/v1/agents/register", rotated, registration("gpu-8")).statusCode()).isEqualTo(201);
    assertThat(server.delete("/api/v1/agents/" + id, GLOBAL).statusCode()).isEqualTo(200);

    assertThat(server.post("/api/v1/agents/" + id + "/heartbeat", rotated, new JsonObject()).statusCode()).isEqualTo(403);
    for (String token : new String[] {oldToken, otherToken, "c".repeat(64), rotated}) {
      assertThat(server.post("/api/v1/agents/register", token, registration("gpu-8")).statusCode()).isEqualTo(403);
    }
    String reissued = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "gpu-8")).bodyAsJsonObject()
        .getString("token");
    HttpResponse<Buffer> back = server.post("/api/v1/agents/register", reissued, registration("gpu-8"));
    assertThat(back.statusCode()).isEqualTo(201);
    assertThat(back.bodyAsJsonObject().getString("agent_id")).isNotEqualTo(id);
  }
}
