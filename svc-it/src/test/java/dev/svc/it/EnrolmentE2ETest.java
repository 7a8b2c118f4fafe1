package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import dev.svc.core.tls.Pem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code svc-agent init} against a real {@code svc web} over HTTPS with a global token. */
class EnrolmentE2ETest extends WithServer {

  @Test
  void initPinsTheCaAndGetsAClientCertificateSignedByItForTheAgentsName() throws Exception {
    try (AgentProcess agent = AgentProcess.enrol(server, "gpu-node-init")) {
      AgentConfig config = agent.config();
      assertThat(config.server()).isEqualTo(server.url().toString());
      assertThat(config.token()).isEqualTo(agent.token());
      assertThat(config.name()).isEqualTo("gpu-node-init");
      assertThat(config.port()).isEqualTo(agent.port());
      assertThat(config.caFingerprint()).isEqualTo(server.caFingerprint());
      X509Certificate ca = Pem.readCertificate(Path.of(config.tls().ca()));
      X509Certificate client = Pem.readCertificate(Path.of(config.tls().cert()));
      client.verify(ca.getPublicKey());
      assertThat(client.getSubjectX500Principal().getName()).startsWith("CN=gpu-node-init,");
      assertThat(Files.readString(Path.of(config.tls().ca()))).isEqualTo(Files.readString(server.caPem()));
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(config.tls().key()))))
          .isEqualTo("rw-------");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(agent.home().resolve("agent.yaml"))))
          .isEqualTo("rw-------");
    }
  }

  @Test
  void aWrongFingerprintSendsNothingAndWritesNothing() throws Exception {
    Path home = Files.createTempDirectory("svc-it-init-");
    try {
      ServerProcess.Provisioned provisioned = server.provision("gpu-node-wrong-ca");
      String wrong = server.caFingerprint().replace(server.caFingerprint().substring(0, 2),
          server.caFingerprint().startsWith("AA") ? "BB" : "AA");
      Processes.Run init = Processes.run(Processes.java(home, "dev.svc.agent.AgentCommand", List.of("init", "--home",
          home.resolve(".svc").toString(), "--server", server.url().toString(), "--token", provisioned.token(),
          "--name", provisioned.name(), "--ca-fingerprint", wrong)), java.time.Duration.ofMinutes(2));
      assertThat(init.exit()).as(init.toString()).isEqualTo(1);
      assertThat(init.stderr()).contains("refusing to send the token").contains(server.caFingerprint());
      assertThat(home.resolve(".svc/agent.yaml")).doesNotExist();
      assertThat(home.resolve(".svc/certs/client.pem")).doesNotExist();
    } finally {
      Processes.deleteTree(home);
    }
  }

  @Test
  void offATerminalWithoutAFingerprintInitShowsItAndRefuses() throws Exception {
    Path home = Files.createTempDirectory("svc-it-init-");
    try {
      Processes.Run init = Processes.run(Processes.java(home, "dev.svc.agent.AgentCommand", List.of("init", "--home",
          home.resolve(".svc").toString(), "--server", server.url().toString(), "--token", "x".repeat(64),
          "--name", "gpu-node-no-pin")), java.time.Duration.ofMinutes(2));
      assertThat(init.exit()).as(init.toString()).isEqualTo(1);
      assertThat(init.stdout() + init.stderr()).contains(server.caFingerprint()).contains("--ca-fingerprint");
      assertThat(home.resolve(".svc/agent.yaml")).doesNotExist();
    } finally {
      Processes.deleteTree(home);
    }
  }

  @Test
  void aTokenTheServerDidNotIssueGetsNoCertificate() throws Exception {
    Path home = Files.createTempDirectory("svc-it-init-");
    try {
      Processes.Run init = Processes.run(Processes.java(home, "dev.svc.agent.AgentCommand", List.of("init", "--home",
          home.resolve(".svc").toString(), "--server", server.url().toString(), "--token", "ab".repeat(32),
          "--name", "gpu-node-self-enrol", "--ca-fingerprint", server.caFingerprint())), java.time.Duration.ofMinutes(2));
      assertThat(init.exit()).as(init.toString()).isEqualTo(1);
      assertThat(init.stderr()).contains("refused the certificate request");
      assertThat(home.resolve(".svc/agent.yaml")).doesNotExist();
    } finally {
      Processes.deleteTree(home);
    }
  }
}
