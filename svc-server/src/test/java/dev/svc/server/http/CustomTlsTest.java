package dev.svc.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.IssuedKeyPair;
import dev.svc.core.tls.ServerCertificate;
import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --tls-cert/--tls-key serve a certificate of the operator's; --tls-ca chooses which CA agents chain to. */
class CustomTlsTest {

  @TempDir
  Path home;

  @TempDir
  Path company;

  @Test
  void customServerCertificateIsServed() {
    CertificateAuthority companyCa = CertificateAuthority.loadOrCreate(company);
    ServerCertificate custom = companyCa.ensureServerCertificate(company.resolve("server"), Set.of("localhost", "127.0.0.1"),
        Duration.ofDays(30));
    try (TestServer server = TestServer.start(home,
        new TestServer.Options().tlsCertificate(custom.certFile(), custom.keyFile()))) {
      // A client that trusts only the generated CA refuses the custom certificate: it is really served.
      assertThatThrownBy(() -> server.client().get("/api/v1/health").send().await())
          .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
      WebClient trusting = WebClient.create(server.vertx(), new io.vertx.ext.web.client.WebClientOptions()
          .setSsl(true).setDefaultHost("localhost").setDefaultPort(server.port())
          .setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(companyCa.caFile().toString())));
      HttpResponse<Buffer> ok = TestServer.send(trusting, HttpMethod.GET, "/api/v1/health", null, null);
      assertThat(ok.bodyAsJsonObject().getString("status")).isEqualTo("ok");
      // the served chain does not carry the generated CA, so the agents page offers no fingerprint to pin
      String agents = TestServer.send(trusting, HttpMethod.GET, "/agents", null, null).bodyAsString();
      assertThat(agents).contains("id=\"enrol-agent-card\"").doesNotContain("data-ca-fingerprint");
    }
  }

  @Test
  void tlsCaChoosesWhichCaAgentCertificatesMustChainTo() {
    CertificateAuthority companyCa = CertificateAuthority.loadOrCreate(company);
    IssuedKeyPair companyAgent = companyCa.issueClientKeyPair("node-c");
    try (TestServer server = TestServer.start(home, new TestServer.Options().tlsCa(companyCa.caFile()))) {
      JsonObject registration = new JsonObject().put("name", "node-c").put("hostname", "node-c");
      WebClient withCompanyCert = server.clientWithCertificate(companyAgent.certificatePem(), companyAgent.privateKeyPem());
      assertThat(TestServer.send(withCompanyCert, HttpMethod.POST, "/api/v1/agents/register", null, registration)
          .statusCode()).isEqualTo(201);

      WebClient withHomeCert = server.agentClient("node-h");
      try {
        HttpResponse<Buffer> refused = TestServer.send(withHomeCert, HttpMethod.POST, "/api/v1/agents/register", null,
            registration.copy().put("name", "node-h"));
        assertThat(refused.statusCode()).isEqualTo(403);
      } catch (IllegalStateException handshakeRefused) {
        assertThat(handshakeRefused).hasMessageContaining("failed");
      }
      assertThat(server.get("/api/v1/agents").bodyAsJsonArray()).hasSize(1);
    }
  }
}
