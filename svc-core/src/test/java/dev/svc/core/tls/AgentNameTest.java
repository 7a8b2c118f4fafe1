package dev.svc.core.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent a client certificate speaks for is the name it was issued to, read back from its subject. */
class AgentNameTest {

  @TempDir
  Path certs;

  @Test
  void anIssuedCertificateNamesItsAgent() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(certs);
    IssuedKeyPair issued = ca.issueClientKeyPair("gpu-node,7+x=\"y\"");
    assertThat(CertificateAuthority.agentName(Pem.parseCertificate(issued.certificatePem())))
        .contains("gpu-node,7+x=\"y\"");
    ServerCertificate server = ca.ensureServerCertificate(certs, java.util.Set.of("localhost"), java.time.Duration.ZERO);
    assertThat(CertificateAuthority.agentName(Pem.parseCertificate(server.certificatePem()))).contains("localhost");
  }

  @Test
  void theCaDirectoryAndKeyAreOwnerOnly() throws Exception {
    Path dir = certs.resolve("home/certs");
    CertificateAuthority.loadOrCreate(dir);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("ca-key.pem"))))
        .isEqualTo("rw-------");
  }
}
