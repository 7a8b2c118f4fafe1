package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.Csr;
import dev.svc.core.tls.IssuedKeyPair;
import dev.svc.core.tls.Pem;
import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registration and heartbeat need a client certificate that chains to the server's CA. */
class MutualTlsTest {

  @TempDir
  Path home;

  @TempDir
  Path elsewhere;

  private TestServer server;

  @BeforeEach
  void start() {
    server = TestServer.start(home);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static JsonObject registration() {
    return new JsonObject().put("name", "node-7").put("hostname", "node-7.lab").put("cpu_arch", "aarch64");
  }

  @Test
  void registrationWithoutClientCertificateIsRefused() {
    HttpResponse<Buffer> response = server.post("/api/v1/agents/register", "a".repeat(64), registration());
    assertThat(response.statusCode()).isEqualTo(403);
    assertThat(response.bodyAsJsonObject().getString("error")).isEqualTo("Client certificate required");
    HttpResponse<Buffer> heartbeat = server.post("/api/v1/agents/node-7/heartbeat", new JsonObject());
    assertThat(heartbeat.statusCode()).isEqualTo(403);
  }

  @Test
  void registrationWithCertificateFromAnotherCaIsRefused() {
    IssuedKeyPair foreign = CertificateAuthority.loadOrCreate(elsewhere).issueClientKeyPair("node-7");
    WebClient client = server.clientWithCertificate(foreign.certificatePem(), foreign.privateKeyPem());
    // The TLS layer rejects a certificate it cannot verify; either way no registration happens.
    try {
      HttpResponse<Buffer> response = TestServer.send(client, HttpMethod.POST, "/api/v1/agents/register", null, registration());
      assertThat(response.statusCode()).isEqualTo(403);
    } catch (IllegalStateException handshakeRefused) {
      assertThat(handshakeRefused).hasMessageContaining("failed");
    }
    assertThat(server.get("/api/v1/agents").bodyAsJsonArray()).isEmpty();
  }

  @Test
  void registrationWithCertificateSignedByTheCaSucceeds() {
    HttpResponse<Buffer> response = TestServer.send(server.agentClient("node-7"), HttpMethod.POST,
        "/api/v1/agents/register", "b".repeat(64), registration());
    assertThat(response.statusCode()).isEqualTo(201);
    assertThat(server.get("/api/v1/agents").bodyAsJsonArray().getJsonObject(0).getString("cpu_arch")).isEqualTo("arm64");
  }

  @Test
  void serverIssuesAnAgentCertificateFromACsr() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair keys = generator.generateKeyPair();
    HttpResponse<Buffer> issued = server.post("/api/v1/agents/certificate",
        new JsonObject().put("name", "node-9").put("csr", Csr.create(keys, "node-9")));
    assertThat(issued.statusCode()).isEqualTo(201);
    String certificate = issued.bodyAsJsonObject().getString("certificate");
    assertThat(Pem.parseCertificate(certificate).getSubjectX500Principal().getName()).contains("CN=node-9");

    WebClient client = server.clientWithCertificate(certificate, Pem.encodePrivateKey(keys.getPrivate()));
    HttpResponse<Buffer> registered = TestServer.send(client, HttpMethod.POST, "/api/v1/agents/register", null,
        registration().put("name", "node-9"));
    assertThat(registered.statusCode()).isEqualTo(201);

    HttpResponse<Buffer> garbage = server.post("/api/v1/agents/certificate",
        new JsonObject().put("name", "node-9").put("csr", "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----"));
    assertThat(garbage.statusCode()).isIn(400, 401);
    assertThatThrownBy(() -> Pem.parseCertificate("not a certificate")).isInstanceOf(RuntimeException.class);
  }
}
