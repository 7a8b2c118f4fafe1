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
 * On an open server (no global token) registration is trust on first use, and that must not let a
 * later caller take over an agent: a token is never bound to an agent registered without one, and
 * test agents (simulated by the server, with no token and no port) are never registered over.
 */
class AgentTakeoverTest {

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.insecure());

  private static JsonObject registration(String name, String hostname) {
    return new JsonObject().put("name", name).put("hostname", hostname).put("port", 8090);
  }

  @Test
  void theFirstTokenPresentedDoesNotTakeOverAnAgentRegisteredWithoutOne() {
    TestServer server = servers.start();
    HttpResponse<Buffer> first = server.post("/api/v1/agents/register", registration("lab-1", "lab-1.local"));
    assertThat(first.statusCode()).isEqualTo(201);
    String id = first.bodyAsJsonObject().getString("agent_id");

    HttpResponse<Buffer> takeover = server.post("/api/v1/agents/register", "e".repeat(64),
        registration("lab-1", "attacker.example"));
    assertThat(takeover.statusCode()).isEqualTo(403);
    assertThat(takeover.bodyAsJsonObject().getString("error")).contains("rotate-token");
    JsonObject agent = server.get("/api/v1/agents/" + id).bodyAsJsonObject();
    assertThat(agent.getString("hostname")).isEqualTo("lab-1.local");
    assertThat(agent.getBoolean("has_token")).isFalse();

    // the agent itself goes on without a token; an operator gives it one with rotate-token
    assertThat(server.post("/api/v1/agents/register", registration("lab-1", "lab-1.local")).statusCode()).isEqualTo(201);
    String token = server.post("/api/v1/agents/" + id + "/rotate-token", new JsonObject()).bodyAsJsonObject()
        .getString("token");
    assertThat(server.post("/api/v1/agents/register", token, registration("lab-1", "lab-1.local")).statusCode())
        .isEqualTo(201);
    assertThat(server.post("/api/v1/agents/register", registration("lab-1", "lab-1.local")).statusCode())
        .as("bound now: no token is 401").isEqualTo(401);
  }

  @Test
  void aRegistrationCannotTakeATestAgentsNameWithOrWithoutAToken() {
    TestServer server = servers.start();
    HttpResponse<Buffer> created = server.post("/api/v1/agents/test", new JsonObject().put("name", "sim-1"));
    assertThat(created.statusCode()).isEqualTo(201);
    String id = created.bodyAsJsonObject().getString("id");

    HttpResponse<Buffer> plain = server.post("/api/v1/agents/register", registration("sim-1", "real.example"));
    assertThat(plain.statusCode()).isEqualTo(409);
    assertThat(plain.bodyAsJsonObject().getString("error")).contains("test agent");
    HttpResponse<Buffer> tokened = server.post("/api/v1/agents/register", "f".repeat(64),
        registration("sim-1", "real.example"));
    assertThat(tokened.statusCode()).isEqualTo(409);

    // nor does it heartbeat as one (which would hand it the test agent's queued tests)
    HttpResponse<Buffer> heartbeat = server.post("/api/v1/agents/" + id + "/heartbeat", new JsonObject());
    assertThat(heartbeat.statusCode()).isEqualTo(409);

    JsonObject agent = server.get("/api/v1/agents/" + id).bodyAsJsonObject();
    assertThat(agent.getBoolean("is_test_agent")).isTrue();
    assertThat(agent.getInteger("port")).isZero();
    assertThat(agent.getString("hostname")).isNotEqualTo("real.example");
    assertThat(agent.getBoolean("has_token")).isFalse();
  }

  @Test
  void aNameThatIsAnotherAgentsIdIsRefused() {
    TestServer server = servers.start();
    String id = server.post("/api/v1/agents/register", registration("lab-2", "lab-2.local")).bodyAsJsonObject()
        .getString("agent_id");
    HttpResponse<Buffer> clash = server.post("/api/v1/agents/register", registration(id, "other.local"));
    assertThat(clash.statusCode()).isEqualTo(409);
    assertThat(clash.bodyAsJsonObject().getString("error")).contains("the id of another agent");
  }
}
