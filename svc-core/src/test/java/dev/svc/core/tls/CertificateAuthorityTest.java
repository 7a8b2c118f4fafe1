package dev.svc.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateAuthorityTest {

  private static final String BASIC_CONSTRAINTS = "2.5.29.19";
  private static final String KEY_USAGE = "2.5.29.15";
  private static final String SUBJECT_KEY_IDENTIFIER = "2.5.29.14";

  @TempDir
  Path dir;

  @Test
  void createsCaOnFirstUseAndReusesItAfterwards() {
    Path certs = dir.resolve("certs");

    CertificateAuthority first = CertificateAuthority.loadOrCreate(certs);
    CertificateAuthority second = CertificateAuthority.loadOrCreate(certs);

    assertThat(first.created()).isTrue();
    assertThat(second.created()).isFalse();
    assertThat(second.fingerprint()).isEqualTo(first.fingerprint());
    assertThat(first.caFile()).isEqualTo(certs.resolve("ca.pem"));
    assertThat(certs.resolve("ca.pem")).exists();
    assertThat(certs.resolve("ca-key.pem")).exists();
    assertThat(Files.exists(certs.resolve("ca-key.pem"))).isTrue();
    assertThat(first.certificatePem()).startsWith("-----BEGIN CERTIFICATE-----");
    assertThat(Pem.readCertificate(certs.resolve("ca.pem"))).isEqualTo(first.certificate());
    assertThat(Pem.readPrivateKey(certs.resolve("ca-key.pem")).getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void caCertificateIsSelfSignedTenYearCaCertificate() throws Exception {
    X509Certificate ca = CertificateAuthority.loadOrCreate(dir).certificate();

    assertThat(ca.getSubjectX500Principal().getName()).isEqualTo("CN=svc CA,O=svc");
    assertThat(ca.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    ca.verify(ca.getPublicKey());
    assertThat(ca.getSigAlgName()).isEqualTo("SHA256withECDSA");
    assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
    assertThat(ca.getCriticalExtensionOIDs()).contains(BASIC_CONSTRAINTS, KEY_USAGE);
    assertThat(ca.getNonCriticalExtensionOIDs()).contains(SUBJECT_KEY_IDENTIFIER);
    boolean[] keyUsage = ca.getKeyUsage();
    assertThat(keyUsage[5]).as("keyCertSign").isTrue();
    assertThat(keyUsage[6]).as("cRLSign").isTrue();
    assertThat(keyUsage[0]).as("digitalSignature").isFalse();
    Duration validity = Duration.between(Instant.now(), ca.getNotAfter().toInstant());
    assertThat(validity.toDays()).isBetween(3650L, 3654L);
  }

  @Test
  void fingerprintIsColonSeparatedSha256OfDer() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);

    byte[] digest = MessageDigest.getInstance("SHA-256").digest(ca.certificate().getEncoded());
    String expected = HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);

    assertThat(ca.fingerprint()).isEqualTo(expected);
    assertThat(ca.fingerprint()).matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
  }

  @Test
  void refusesToReplaceCaWhenOnlyItsCertificateIsLeft() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.delete(dir.resolve("ca-key.pem"));
    String before = Files.readString(dir.resolve("ca.pem"));

    assertThatThrownBy(() -> CertificateAuthority.loadOrCreate(dir))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ca-key.pem");
    assertThat(Files.readString(dir.resolve("ca.pem"))).isEqualTo(before);
  }

  @Test
  void loadsCustomCaFromItsFiles() {
    CertificateAuthority generated = CertificateAuthority.loadOrCreate(dir.resolve("gen"));

    CertificateAuthority custom = CertificateAuthority.load(
        dir.resolve("gen/ca.pem"), dir.resolve("gen/ca-key.pem"));

    assertThat(custom.fingerprint()).isEqualTo(generated.fingerprint());
    assertThat(custom.created()).isFalse();
    assertThat(custom.canIssue()).isTrue();
    assertThat(custom.issued(Pem.parseCertificate(custom.issueClientKeyPair("a").certificatePem()))).isTrue();
  }

  @Test
  void rejectsCustomCaWhoseKeyBelongsToAnotherCertificate() {
    CertificateAuthority.loadOrCreate(dir.resolve("one"));
    CertificateAuthority.loadOrCreate(dir.resolve("two"));

    assertThatThrownBy(() -> CertificateAuthority.load(dir.resolve("one/ca.pem"), dir.resolve("two/ca-key.pem")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not the private key");
  }

  @Test
  void rejectsCustomCaThatIsNotACaCertificate() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    IssuedKeyPair leaf = ca.issueClientKeyPair("agent");
    Files.writeString(dir.resolve("leaf.pem"), leaf.certificatePem());
    Files.writeString(dir.resolve("leaf-key.pem"), leaf.privateKeyPem());

    assertThatThrownBy(() -> CertificateAuthority.load(dir.resolve("leaf.pem"), dir.resolve("leaf-key.pem")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a CA certificate");
  }

  @Test
  void trustOnlyCaCannotIssue() {
    CertificateAuthority.loadOrCreate(dir);
    CertificateAuthority trustOnly = CertificateAuthority.trustOnly(dir.resolve("ca.pem"));
    String csr = Csr.create(Keys.newEcP256(), "agent");

    assertThat(trustOnly.canIssue()).isFalse();
    assertThatThrownBy(() -> trustOnly.issueFromCsr(csr, "agent"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot issue");
    assertThatThrownBy(() -> trustOnly.issueClientKeyPair("agent"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot issue");
    assertThatThrownBy(() -> trustOnly.ensureServerCertificate(dir, Set.of("localhost"), Duration.ofDays(30)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot issue");
    assertThat(dir.resolve("server.pem")).doesNotExist();
  }

  @Test
  void theJdkAndBouncyCastleAgreeOnWhatTheCaIssued() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir.resolve("ours"));
    // every svc CA has the same name: only the signature tells another CA's certificates apart
    CertificateAuthority other = CertificateAuthority.loadOrCreate(dir.resolve("theirs"));
    assertThat(other.certificate().getSubjectX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());

    for (java.security.Provider provider : new java.security.Provider[] {null, Keys.signatures()}) {
      CertificateAuthority fresh = CertificateAuthority.load(dir.resolve("ours/ca.pem"), dir.resolve("ours/ca-key.pem"));
      X509Certificate ours = Pem.parseCertificate(ca.issueClientKeyPair("a").certificatePem());
      X509Certificate theirs = Pem.parseCertificate(other.issueClientKeyPair("a").certificatePem());
      assertThat(fresh.issued(ours, provider)).as("ours, provider %s", provider).isTrue();
      assertThat(fresh.issued(theirs, provider)).as("theirs, provider %s", provider).isFalse();
    }
  }

  @Test
  void trustOnlyCaRecognisesCertificatesItsKeyIssued() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir.resolve("ours"));
    CertificateAuthority other = CertificateAuthority.loadOrCreate(dir.resolve("theirs"));
    CertificateAuthority trustOnly = CertificateAuthority.trustOnly(dir.resolve("ours/ca.pem"));

    X509Certificate ours = Pem.parseCertificate(ca.issueClientKeyPair("a").certificatePem());
    X509Certificate theirs = Pem.parseCertificate(other.issueClientKeyPair("a").certificatePem());

    assertThat(trustOnly.issued(ours)).isTrue();
    assertThat(trustOnly.issued(theirs)).isFalse();
    assertThat(trustOnly.issued(null)).isFalse();
    assertThat(trustOnly.fingerprint()).isEqualTo(ca.fingerprint());
  }

  @Test
  void keyFilesAreOwnerReadableOnly() throws Exception {
    assumeTrue(Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class),
        "file system has no POSIX permissions");
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    ca.ensureServerCertificate(dir, Set.of("localhost"), Duration.ofDays(30));

    Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
    assertThat(Files.getPosixFilePermissions(dir.resolve("ca-key.pem"))).isEqualTo(ownerOnly);
    assertThat(Files.getPosixFilePermissions(dir.resolve("server-key.pem"))).isEqualTo(ownerOnly);
    assertThat(Files.getPosixFilePermissions(dir.resolve("ca.pem"))).contains(PosixFilePermission.OTHERS_READ);
    assertThat(Files.getPosixFilePermissions(dir.resolve("server.pem"))).contains(PosixFilePermission.OTHERS_READ);
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("no temporary files are left behind")
          .containsExactlyInAnyOrder("ca.pem", "ca-key.pem", "server.pem", "server-key.pem");
    }
  }
}
