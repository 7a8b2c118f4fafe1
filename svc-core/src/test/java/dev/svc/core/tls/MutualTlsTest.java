package dev.svc.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class MutualTlsTest {

  private static final char[] PASSWORD = "x".toCharArray();
  private static final int TIMEOUT_MS = 10_000;

  @TempDir
  Path dir;

  private CertificateAuthority ca;
  private ExecutorService executor;

  @BeforeEach
  void setUp() {
    ca = CertificateAuthority.loadOrCreate(dir);
    executor = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void serverAndAgentCertificatesCompleteAMutualTlsHandshake() throws Exception {
    ServerCertificate server = ca.ensureServerCertificate(dir, Set.of("localhost", "127.0.0.1"), Duration.ofDays(30));
    IssuedKeyPair agent = ca.issueClientKeyPair("agent-1");

    String peer = handshake(
        context(server.certificatePem(), server.privateKeyPem(), ca.certificatePem()),
        context(agent.certificatePem(), agent.privateKeyPem(), agent.caCertificatePem()));

    assertThat(peer).isEqualTo("CN=agent-1,O=svc agents");
  }

  @Test
  void agentWithCertificateFromAnotherCaIsRefused() throws Exception {
    ServerCertificate server = ca.ensureServerCertificate(dir, Set.of("localhost"), Duration.ofDays(30));
    IssuedKeyPair stranger = CertificateAuthority.loadOrCreate(dir.resolve("other")).issueClientKeyPair("stranger");

    SSLContext serverContext = context(server.certificatePem(), server.privateKeyPem(), ca.certificatePem());
    SSLContext strangerContext = context(stranger.certificatePem(), stranger.privateKeyPem(), ca.certificatePem());

    assertThatThrownBy(() -> handshake(serverContext, strangerContext)).isInstanceOf(SSLException.class);
  }

  @Test
  void agentRefusesServerCertificateThatLacksTheHostName() throws Exception {
    ServerCertificate server = ca.ensureServerCertificate(dir, Set.of("bench.example.org"), Duration.ofDays(30));
    IssuedKeyPair agent = ca.issueClientKeyPair("agent-1");

    SSLContext serverContext = context(server.certificatePem(), server.privateKeyPem(), ca.certificatePem());
    SSLContext agentContext = context(agent.certificatePem(), agent.privateKeyPem(), ca.certificatePem());

    assertThatThrownBy(() -> handshake(serverContext, agentContext))
        .isInstanceOf(SSLException.class)
        .hasMessageContaining("localhost");
  }

  /** Runs one handshake to "localhost" with hostname verification; returns the client subject the server saw. */
  private String handshake(SSLContext serverContext, SSLContext clientContext) throws Exception {
    try (SSLServerSocket listener = (SSLServerSocket) serverContext.getServerSocketFactory()
        .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      listener.setNeedClientAuth(true);
      listener.setSoTimeout(TIMEOUT_MS);
      Future<String> accepted = executor.submit(() -> {
        try (SSLSocket socket = (SSLSocket) listener.accept()) {
          socket.setSoTimeout(TIMEOUT_MS);
          socket.startHandshake();
          Certificate[] chain = socket.getSession().getPeerCertificates();
          socket.getOutputStream().write(1);
          socket.getOutputStream().flush();
          return ((X509Certificate) chain[0]).getSubjectX500Principal().getName();
        }
      });
      java.io.IOException clientFailure = null;
      try (Socket plain = new Socket()) {
        plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), TIMEOUT_MS);
        plain.setSoTimeout(TIMEOUT_MS);
        try (SSLSocket client = (SSLSocket) clientContext.getSocketFactory()
            .createSocket(plain, "localhost", listener.getLocalPort(), false)) {
          SSLParameters parameters = client.getSSLParameters();
          parameters.setEndpointIdentificationAlgorithm("HTTPS");
          client.setSSLParameters(parameters);
          client.startHandshake();
          if (client.getInputStream().read() != 1) {
            throw new SSLException("the server closed the connection after the handshake");
          }
        }
      } catch (SSLException e) {
        throw e;
      } catch (java.io.IOException e) {
        // The server aborted the handshake (e.g. broken pipe while we wrote): its own exception says why.
        clientFailure = e;
      }
      try {
        return accepted.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof SSLException) {
          throw (SSLException) e.getCause();
        }
        throw e;
      } finally {
        if (clientFailure != null && !accepted.isDone()) {
          throw clientFailure;
        }
      }
    }
  }

  private static SSLContext context(String certificatePem, String keyPem, String caPem) throws Exception {
    KeyStore identity = KeyStore.getInstance("PKCS12");
    identity.load(null, null);
    identity.setKeyEntry("me", Pem.parsePrivateKey(keyPem), PASSWORD,
        new Certificate[] {Pem.parseCertificate(certificatePem), Pem.parseCertificate(caPem)});
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(identity, PASSWORD);

    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", Pem.parseCertificate(caPem));
    TrustManagerFactory trusted = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trusted.init(trust);

    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), trusted.getTrustManagers(), null);
    return context;
  }
}
