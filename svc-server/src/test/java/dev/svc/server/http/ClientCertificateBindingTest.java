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
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client certificate speaks for the agent it names (its subject CN) and for no other: agent B's
 * certificate, signed by the same CA, neither registers nor heartbeats agent A.
 */
class ClientCertificateBindingTest {

  private static final String GLOBAL = "binding-global-token";

  @RegisterExtension
  final TestServers servers = new TestServers(o -> o.authToken(GLOBAL));

  private static JsonObject registration(String name) {
    return new JsonObject().put("name", name).put("hostname", name + ".lab").put("cpu_arch", "x86_64");
  }

  private static HttpResponse<Buffer> call(WebClient client, String path, String token, JsonObject body) {
    return TestServer.send(client, HttpMethod.POST, path, token, body);
  }

  @Test
  void anotherAgentsCertificateNeitherRegistersNorHeartbeats() {
    TestServer server = servers.start();
    String tokenA = server.post("/api/v1/agents", GLOBAL, new JsonObject().put("name", "node-a")).bodyAsJsonObject()
        .getString("token");
    WebClient certA = server.agentClient("node-a");
    WebClient certB = server.agentClient("node-b");

    // B's certificate with A's name and A's own token: refused, whatever the token
    HttpResponse<Buffer> asA = call(certB, "/api/v1/agents/register", tokenA, registration("node-a"));
    assertThat(asA.statusCode()).isEqualTo(403);
    assertThat(asA.bodyAsJsonObject().getString("error")).contains("'node-b'").contains("'node-a'");
    HttpResponse<Buffer> withGlobal = call(certB, "/api/v1/agents/register", GLOBAL, registration("node-a"));
    assertThat(withGlobal.statusCode()).isEqualTo(403);

    HttpResponse<Buffer> registered = call(certA, "/api/v1/agents/register", tokenA, registration("node-a"));
    assertThat(registered.statusCode()).isEqualTo(201);
    String idA = registered.bodyAsJsonObject().getString("agent_id");

    // heartbeats: by id and by name, B's certificate is refused and A's accepted
    HttpResponse<Buffer> byId = call(certB, "/api/v1/agents/" + idA + "/heartbeat", tokenA, new JsonObject());
    assertThat(byId.statusCode()).isEqualTo(403);
    assertThat(byId.bodyAsJsonObject().getString("error")).contains("'node-b'");
    assertThat(call(certB, "/api/v1/agents/node-a/heartbeat", tokenA, new JsonObject()).statusCode()).isEqualTo(403);
    assertThat(call(certA, "/api/v1/agents/" + idA + "/heartbeat", tokenA, new JsonObject()).statusCode())
        .isEqualTo(200);
    assertThat(call(certA, "/api/v1/agents/node-a/heartbeat", tokenA, new JsonObject()).statusCode()).isEqualTo(200);
  }

  @Test
  void aCertificateIssuedFromACsrIsBoundToTheNameItWasIssuedFor() throws Exception {
    TestServer server = servers.start();
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair keys = generator.generateKeyPair();
    // the CSR says node-a, the request says node-c: the certificate names node-c
    HttpResponse<Buffer> issued = server.post("/api/v1/agents/certificate", GLOBAL,
        new JsonObject().put("name", "node-c").put("csr", Csr.create(keys, "node-a")));
    assertThat(issued.statusCode()).isEqualTo(201);
    WebClient certC = server.clientWithCertificate(issued.bodyAsJsonObject().getString("certificate"),
        Pem.encodePrivateKey(keys.getPrivate()));

    assertThat(call(certC, "/api/v1/agents/register", GLOBAL, registration("node-a")).statusCode()).isEqualTo(403);
    HttpResponse<Buffer> asC = call(certC, "/api/v1/agents/register", GLOBAL, registration("node-c"));
    assertThat(asC.statusCode()).isEqualTo(201);
  }
}
