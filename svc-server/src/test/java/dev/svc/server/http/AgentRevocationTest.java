package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.tls.Csr;
import dev.svc.core.tls.Pem;
import dev.svc.server.TestServer;
import dev.svc.server.TestServers;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Deleting an agent revokes its credentials and rotating its token revokes the old ones: the token
 * and the certificates issued to it are refused from then on, and only a token the operator issues
 * anew brings the host back. Enrolment is single use: a token obtains one certificate.
 */
class AgentRevocationTest {

  private static final String GLOBAL = "revocation-global-token";

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.authToken(GLOBAL));

  @RegisterExtension
  final TestServers openServers = new TestServers(o -> o);

  /** A client certificate obtained over the API, as svc-agent init obtains it, and a client presenting it. */
  private record Enrolled(HttpResponse<Buffer> answer, WebClient client) {
  }

  private static Enrolled enrol(TestServer server, String name, String token) {
    KeyPair keys = newKeys();
    HttpResponse<Buffer> answer = server.post("/api/v1/agents/certificate", token,
        new JsonObject().put("name", name).put("csr", Csr.create(keys, name)));
    WebClient client = answer.statusCode() != 201 ? null : server.clientWithCertificate(
        answer.bodyAsJsonObject().getString("certificate"), Pem.encodePrivateKey(keys.getPrivate()));
    return new Enrolled(answer, client);
  }

  private static KeyPair newKeys() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String provision(TestServer server, String name) {
    HttpResponse<Buffer> provisioned = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", name));
    assertThat(provisioned.statusCode()).isEqualTo(201);
    return provisioned.bodyAsJsonObject().getString("token");
  }

  private static HttpResponse<Buffer> register(WebClient client, String name, String token) {
    return TestServer.send(client, HttpMethod.POST, "/api/v1/agents/register", token,
        new JsonObject().put("name", name).put("hostname", name + ".lab").put("cpu_arch", "x86_64"));
  }

  private static HttpResponse<Buffer> heartbeat(WebClient client, String idOrName, String token) {
    return TestServer.send(client, HttpMethod.POST, "/api/v1/agents/" + idOrName + "/heartbeat", token,
        new JsonObject().put("status", "idle"));
  }

  private static String error(HttpResponse<Buffer> response) {
    return response.bodyAsJsonObject().getString("error");
  }

  @Test
  void aDeletedAgentStaysOutUntilTheOperatorProvisionsItAgain() {
    TestServer server = servers.start();
    String token = provision(server, "node-r");
    Enrolled enrolled = enrol(server, "node-r", token);
    assertThat(enrolled.answer().statusCode()).isEqualTo(201);
    HttpResponse<Buffer> registered = register(enrolled.client(), "node-r", token);
    assertThat(registered.statusCode()).isEqualTo(201);
    String id = registered.bodyAsJsonObject().getString("agent_id");
    assertThat(heartbeat(enrolled.client(), id, token).statusCode()).isEqualTo(200);

    assertThat(server.delete("/api/v1/agents/" + id, GLOBAL).statusCode()).isEqualTo(200);

    // the stolen or decommissioned host: neither its registration nor its heartbeats get in again
    HttpResponse<Buffer> again = register(enrolled.client(), "node-r", token);
    assertThat(again.statusCode()).isEqualTo(403);
    assertThat(error(again)).contains("revoked");
    for (String idOrName : List.of(id, "node-r")) {
      HttpResponse<Buffer> beat = heartbeat(enrolled.client(), idOrName, token);
      assertThat(beat.statusCode()).as("heartbeat of %s", idOrName).isEqualTo(403);
      assertThat(error(beat)).contains("revoked");
    }
    assertThat(enrol(server, "node-r", token).answer().statusCode()).isEqualTo(403);
    assertThat(server.get("/api/v1/agents", GLOBAL).bodyAsJsonArray()).isEmpty();
    // the deleted row takes no rotation: the way back is a new agent with a new token
    assertThat(server.post("/api/v1/agents/" + id + "/rotate-token", GLOBAL, new JsonObject()).statusCode())
        .isEqualTo(404);

    String newToken = provision(server, "node-r");
    // the old certificate was revoked with the agent, whatever token comes with it
    HttpResponse<Buffer> oldCertificate = register(enrolled.client(), "node-r", newToken);
    assertThat(oldCertificate.statusCode()).isEqualTo(403);
    assertThat(error(oldCertificate)).contains("Client certificate was revoked");
    Enrolled reEnrolled = enrol(server, "node-r", newToken);
    assertThat(reEnrolled.answer().statusCode()).isEqualTo(201);
    HttpResponse<Buffer> back = register(reEnrolled.client(), "node-r", newToken);
    assertThat(back.statusCode()).isEqualTo(201);
    String newId = back.bodyAsJsonObject().getString("agent_id");
    assertThat(newId).isNotEqualTo(id);
    assertThat(heartbeat(reEnrolled.client(), newId, newToken).statusCode()).isEqualTo(200);
    // the first token stays revoked, also once the new row is rotated and deleted in its turn
    assertThat(register(reEnrolled.client(), "node-r", token).statusCode()).isEqualTo(403);
    assertThat(server.post("/api/v1/agents/" + newId + "/rotate-token", GLOBAL, new JsonObject()).statusCode())
        .isEqualTo(200);
    assertThat(server.delete("/api/v1/agents/" + newId, GLOBAL).statusCode()).isEqualTo(200);
    assertThat(register(reEnrolled.client(), "node-r", token).statusCode()).isEqualTo(403);
    assertThat(server.get("/api/v1/agents", GLOBAL).bodyAsJsonArray()).isEmpty();
  }

  @Test
  void rotatingATokenRevokesTheOldTokenAndTheCertificatesIssuedBeforeIt() {
    TestServer server = servers.start();
    String token = provision(server, "node-t");
    Enrolled first = enrol(server, "node-t", token);
    HttpResponse<Buffer> registered = register(first.client(), "node-t", token);
    assertThat(registered.statusCode()).isEqualTo(201);
    String id = registered.bodyAsJsonObject().getString("agent_id");

    HttpResponse<Buffer> rotated = server.post("/api/v1/agents/" + id + "/rotate-token", GLOBAL, new JsonObject());
    assertThat(rotated.statusCode()).isEqualTo(200);
    String newToken = rotated.bodyAsJsonObject().getString("token");

    assertThat(heartbeat(first.client(), id, token).statusCode()).isEqualTo(403);
    HttpResponse<Buffer> oldCertificate = heartbeat(first.client(), id, newToken);
    assertThat(oldCertificate.statusCode()).isEqualTo(403);
    assertThat(error(oldCertificate)).contains("Client certificate was revoked");

    Enrolled second = enrol(server, "node-t", newToken);
    assertThat(second.answer().statusCode()).isEqualTo(201);
    assertThat(heartbeat(second.client(), id, newToken).statusCode()).isEqualTo(200);
    assertThat(register(second.client(), "node-t", newToken).statusCode()).isEqualTo(201);
  }

  @Test
  void anEnrolmentTokenObtainsOneCertificateUntilTheOperatorRotatesIt() throws Exception {
    TestServer server = servers.start();
    String token = provision(server, "node-e");
    // racing requests with a fresh token: exactly one certificate
    List<HttpResponse<Buffer>> raced = TestServer.concurrently(4, i -> server.client()
        .post("/api/v1/agents/certificate").bearerTokenAuthentication(token)
        .sendJsonObject(new JsonObject().put("name", "node-e").put("csr", Csr.create(newKeys(), "node-e"))));
    assertThat(raced.stream().map(HttpResponse::statusCode).sorted().toList()).containsExactly(201, 403, 403, 403);

    // replayed later, from anywhere: refused, saying how to enrol again
    HttpResponse<Buffer> replayed = enrol(server, "node-e", token).answer();
    assertThat(replayed.statusCode()).isEqualTo(403);
    assertThat(error(replayed)).contains("single use").contains("rotate");

    String id = server.get("/api/v1/agents", GLOBAL).bodyAsJsonArray().getJsonObject(0).getString("id");
    String newToken = server.post("/api/v1/agents/" + id + "/rotate-token", GLOBAL, new JsonObject()).bodyAsJsonObject()
        .getString("token");
    Enrolled again = enrol(server, "node-e", newToken);
    assertThat(again.answer().statusCode()).isEqualTo(201);
    assertThat(enrol(server, "node-e", newToken).answer().statusCode()).isEqualTo(403);
    assertThat(register(again.client(), "node-e", newToken).statusCode()).isEqualTo(201);

    // the operator's global token may issue more
    assertThat(enrol(server, "node-e", GLOBAL).answer().statusCode()).isEqualTo(201);
    assertThat(enrol(server, "node-e", GLOBAL).answer().statusCode()).isEqualTo(201);
  }

  @Test
  void onAnOpenServerADeletedAgentsTokenDoesNotRegisterAgain() {
    TestServer server = openServers.start();
    String token = "self-chosen-token-of-node-o";
    WebClient client = server.agentClient("node-o");
    HttpResponse<Buffer> registered = register(client, "node-o", token);
    assertThat(registered.statusCode()).isEqualTo(201);
    String id = registered.bodyAsJsonObject().getString("agent_id");
    assertThat(server.delete("/api/v1/agents/" + id, null).statusCode()).isEqualTo(200);

    HttpResponse<Buffer> again = register(client, "node-o", token);
    assertThat(again.statusCode()).isEqualTo(403);
    assertThat(error(again)).contains("revoked");
    assertThat(register(client, "node-o-2", token).statusCode()).isEqualTo(403);
    assertThat(heartbeat(client, "node-o", token).statusCode()).isEqualTo(403);
    // another token registers the name anew: an open server binds whatever comes first
    assertThat(register(client, "node-o", "another-token").statusCode()).isEqualTo(201);
  }
}