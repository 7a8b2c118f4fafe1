package dev.svc.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.Pem;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** `svc certs issue-agent <name>` writes a client certificate signed by the server's CA. */
class CertsCommandTest {

  @TempDir
  Path home;

  @Test
  void issueAgentWritesACertificateSignedByTheServerCa() throws Exception {
    int exit = new CommandLine(new SvcCommand()).execute("certs", "issue-agent", "gpu-node-3", "--home", home.toString());
    assertThat(exit).isZero();
    Path dir = home.resolve("certs/agents/gpu-node-3");
    X509Certificate cert = Pem.readCertificate(dir.resolve("client.pem"));
    assertThat(cert.getSubjectX500Principal().getName()).contains("CN=gpu-node-3");
    assertThat(cert.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.2");
    assertThat(CertificateAuthority.loadOrCreate(home.resolve("certs")).issued(cert)).isTrue();
    assertThat(Pem.readPrivateKey(dir.resolve("client-key.pem"))).isNotNull();
    assertThat(Files.getPosixFilePermissions(dir.resolve("client-key.pem")))
        .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    // the directory holding the key is the agent's alone too
    assertThat(Files.getPosixFilePermissions(dir)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    assertThat(Files.readString(dir.resolve("ca.pem"))).contains("BEGIN CERTIFICATE");
  }

  @Test
  void versionIsThePackageVersion() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new SvcCommand());
    cli.setOut(new PrintWriter(out));
    assertThat(cli.execute("--version")).isZero();
    assertThat(out.toString().trim()).isEqualTo("svc " + dev.svc.core.SvcVersion.version());
    assertThat(dev.svc.core.SvcVersion.version()).matches("\\d+\\.\\d+\\.\\d+");
  }

  @Test
  void aBlankAgentNameIsRefused() {
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new SvcCommand());
    cli.setErr(new PrintWriter(err));
    assertThat(cli.execute("certs", "issue-agent", " ", "--home", home.toString())).isNotZero();
  }
}
