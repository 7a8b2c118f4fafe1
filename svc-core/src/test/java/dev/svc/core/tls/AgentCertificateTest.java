package dev.svc.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentCertificateTest {

  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

  @TempDir
  Path dir;

  private CertificateAuthority ca;

  @BeforeEach
  void createCa() {
    ca = CertificateAuthority.loadOrCreate(dir);
  }

  @Test
  void issuesClientCertificateFromCsrSignedByCa() throws Exception {
    KeyPair agentKey = Keys.newEcP256();
    String csr = Csr.create(agentKey, "whatever-the-agent-claims");

    IssuedCertificate issued = ca.issueFromCsr(csr, "gpu-box-1");

    X509Certificate cert = Pem.parseCertificate(issued.certificatePem());
    cert.verify(ca.certificate().getPublicKey());
    assertThat(ca.issued(cert)).isTrue();
    assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=gpu-box-1,O=svc agents");
    assertThat(cert.getPublicKey()).isEqualTo(agentKey.getPublic());
    assertThat(cert.getExtendedKeyUsage()).containsExactly(CLIENT_AUTH);
    boolean[] keyUsage = cert.getKeyUsage();
    assertThat(keyUsage[0]).as("digitalSignature").isTrue();
    assertThat(keyUsage[2]).as("keyEncipherment").isFalse();
    assertThat(cert.getBasicConstraints()).isEqualTo(-1);
    assertThat(Duration.between(Instant.now(), cert.getNotAfter().toInstant()).toDays()).isEqualTo(396L);
    assertThat(issued.notAfter()).isEqualTo(cert.getNotAfter().toInstant());
    assertThat(issued.caCertificatePem()).isEqualTo(ca.certificatePem());
    assertThat(issued.fingerprint()).isEqualTo(Fingerprint.sha256(cert));
  }

  @Test
  void agentNameCannotAddAttributesToTheSubject() {
    String csr = Csr.create(Keys.newEcP256(), "x");

    IssuedCertificate issued = ca.issueFromCsr(csr, "evil,O=svc CA");

    X509Certificate cert = Pem.parseCertificate(issued.certificatePem());
    assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=evil\\,O\\=svc CA,O=svc agents");
  }

  @Test
  void rejectsCsrWithBadSignature() throws Exception {
    KeyPair claimed = Keys.newEcP256();
    KeyPair signer = Keys.newEcP256();
    var forged = new JcaPKCS10CertificationRequestBuilder(new X500Name("CN=agent"), claimed.getPublic())
        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate()));
    String forgedPem = Pem.encode("CERTIFICATE REQUEST", forged.getEncoded());

    assertThatThrownBy(() -> ca.issueFromCsr(forgedPem, "agent"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("signature");
  }

  @Test
  void rejectsCsrWithATamperedSignatureByte() {
    String csr = Csr.create(Keys.newEcP256(), "agent");
    byte[] der = Base64.getMimeDecoder().decode(csr.replaceAll("-----[A-Z ]+-----", ""));
    der[der.length - 1] ^= 0x01;
    String tampered = Pem.encode("CERTIFICATE REQUEST", der);

    assertThatThrownBy(() -> ca.issueFromCsr(tampered, "agent"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("certificate signing request");
  }

  @Test
  void rejectsTextThatIsNotACsr() {
    assertThatThrownBy(() -> ca.issueFromCsr(ca.certificatePem(), "agent"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no PEM certificate signing request");
    assertThatThrownBy(() -> ca.issueFromCsr("-----BEGIN CERTIFICATE REQUEST-----\nbm9wZQ==\n"
        + "-----END CERTIFICATE REQUEST-----\n", "agent"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("could not be parsed");
    assertThatThrownBy(() -> ca.issueFromCsr("", "agent"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectsBlankOrOverlongAgentNames() {
    String csr = Csr.create(Keys.newEcP256(), "agent");

    assertThatThrownBy(() -> ca.issueFromCsr(csr, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> ca.issueClientKeyPair("a".repeat(65)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("64");
  }

  @Test
  void issuesClientKeyPairWhoseKeyMatchesItsCertificate() throws Exception {
    IssuedKeyPair issued = ca.issueClientKeyPair("cli-agent");

    X509Certificate cert = Pem.parseCertificate(issued.certificatePem());
    PrivateKey key = Pem.parsePrivateKey(issued.privateKeyPem());
    assertThat(issued.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(Keys.matches(key, cert.getPublicKey())).isTrue();
    assertThat(ca.issued(cert)).isTrue();
    assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=cli-agent,O=svc agents");
    assertThat(cert.getExtendedKeyUsage()).containsExactly(CLIENT_AUTH);
    assertThat(issued.caCertificatePem()).isEqualTo(ca.certificatePem());
    assertThat(issued.toString()).doesNotContain("PRIVATE KEY");
  }

  @Test
  void csrCarriesTheRequestedNameAndKey() throws Exception {
    KeyPair keyPair = Keys.newEcP256();

    String pem = Csr.create(keyPair, "agent-7");

    assertThat(pem).startsWith("-----BEGIN CERTIFICATE REQUEST-----");
    var request = Csr.parseVerified(pem);
    assertThat(request.getSubject().toString()).isEqualTo("CN=agent-7");
    assertThat(request.getSubjectPublicKeyInfo().getEncoded()).isEqualTo(keyPair.getPublic().getEncoded());
  }
}
