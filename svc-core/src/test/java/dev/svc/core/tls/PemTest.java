package dev.svc.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1Object;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PemTest {

  @TempDir
  Path dir;

  @Test
  void roundTripsCertificatesAndPkcs8KeysThroughFiles() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir.resolve("ca"));
    KeyPair keyPair = Keys.newEcP256();

    Pem.writeCertificate(dir.resolve("c.pem"), ca.certificate());
    Pem.writePrivateKey(dir.resolve("k.pem"), keyPair.getPrivate());

    X509Certificate cert = Pem.readCertificate(dir.resolve("c.pem"));
    PrivateKey key = Pem.readPrivateKey(dir.resolve("k.pem"));
    assertThat(cert).isEqualTo(ca.certificate());
    assertThat(key.getEncoded()).isEqualTo(keyPair.getPrivate().getEncoded());
    assertThat(Pem.encodePrivateKey(key)).startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(Pem.encodeCertificate(cert)).isEqualTo(ca.certificatePem());
  }

  @Test
  void writesWhatBouncyCastleWritesAndReadsChainsInOrder() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir.resolve("ca"));
    KeyPair keyPair = Keys.newEcP256();
    X509Certificate leaf = Pem.parseCertificate(ca.issueClientKeyPair("a").certificatePem());
    // the form of Bouncy Castle's writer, which wrote the files of earlier versions
    for (String type : new String[] {"CERTIFICATE", "PRIVATE KEY"}) {
      byte[] der = type.equals("CERTIFICATE") ? leaf.getEncoded() : keyPair.getPrivate().getEncoded();
      StringWriter out = new StringWriter();
      try (org.bouncycastle.util.io.pem.PemWriter writer = new org.bouncycastle.util.io.pem.PemWriter(out)) {
        writer.writeObject(new org.bouncycastle.util.io.pem.PemObject(type, der));
      }
      String ours = type.equals("CERTIFICATE") ? Pem.encodeCertificate(leaf) : Pem.encodePrivateKey(keyPair.getPrivate());
      assertThat(ours).isEqualTo(out.toString());
    }

    String chain = "leaf:\n" + Pem.encodeCertificate(leaf) + "issuer:\n" + ca.certificatePem();
    assertThat(Pem.parseCertificates(chain)).containsExactly(leaf, ca.certificate());
    assertThatThrownBy(() -> Pem.parseCertificates("no certificate"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no PEM certificate");
    assertThatThrownBy(() -> Pem.parseCertificates(chain.replace(ca.certificatePem(),
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Certificate 2");
  }

  @Test
  void readsTraditionalEcPrivateKeysWithAndWithoutPublicPart() {
    KeyPair ec = Keys.newEcP256();
    PrivateKeyInfo pkcs8 = PrivateKeyInfo.getInstance(ec.getPrivate().getEncoded());
    ASN1Encodable curve = pkcs8.getPrivateKeyAlgorithm().getParameters();
    BigInteger secret = ((ECPrivateKey) ec.getPrivate()).getS();
    byte[] point = SubjectPublicKeyInfo.getInstance(ec.getPublic().getEncoded()).getPublicKeyData().getBytes();

    String withPublic = Pem.encode("EC PRIVATE KEY", encoded(
        new org.bouncycastle.asn1.sec.ECPrivateKey(256, secret, new DERBitString(point), curve)));
    String withoutPublic = Pem.encode("EC PRIVATE KEY", encoded(
        new org.bouncycastle.asn1.sec.ECPrivateKey(256, secret, curve)));

    assertThat(Keys.matches(Pem.parsePrivateKey(withPublic), ec.getPublic())).isTrue();
    assertThat(Keys.matches(Pem.parsePrivateKey(withoutPublic), ec.getPublic())).isTrue();
  }

  @Test
  void readsTraditionalRsaPrivateKeys() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair rsa = generator.generateKeyPair();
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(rsa.getPrivate());
    }

    assertThat(out.toString()).startsWith("-----BEGIN RSA PRIVATE KEY-----");
    assertThat(Keys.matches(Pem.parsePrivateKey(out.toString()), rsa.getPublic())).isTrue();
  }

  @Test
  void skipsLeadingBlocksAndTextBeforeTheWantedObject() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    KeyPair keyPair = Keys.newEcP256();

    String bundle = "subject=CN = svc CA\n" + Pem.encodePrivateKey(keyPair.getPrivate()) + ca.certificatePem();

    assertThat(Pem.parseCertificate(bundle)).isEqualTo(ca.certificate());
    assertThat(Pem.parsePrivateKey(bundle).getEncoded()).isEqualTo(keyPair.getPrivate().getEncoded());
  }

  @Test
  void rejectsEncryptedPrivateKeysWithAHint() {
    String encrypted = "-----BEGIN EC PRIVATE KEY-----\n"
        + "Proc-Type: 4,ENCRYPTED\n"
        + "DEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n"
        + "\n"
        + Base64.getEncoder().encodeToString(new byte[48]) + "\n"
        + "-----END EC PRIVATE KEY-----\n";

    assertThatThrownBy(() -> Pem.parsePrivateKey(encrypted))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("encrypted");
  }

  @Test
  void rejectsTextWithoutTheWantedObject() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    Files.writeString(dir.resolve("garbage.pem"), "hello");

    assertThatThrownBy(() -> Pem.parsePrivateKey(ca.certificatePem()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no PEM private key");
    assertThatThrownBy(() -> Pem.readCertificate(dir.resolve("garbage.pem")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("garbage.pem")
        .hasMessageContaining("no PEM certificate");
    assertThatThrownBy(() -> Pem.parseCertificate(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
  }

  private static byte[] encoded(ASN1Object object) {
    try {
      return object.getEncoded();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
