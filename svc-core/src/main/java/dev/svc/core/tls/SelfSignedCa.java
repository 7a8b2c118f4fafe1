package dev.svc.core.tls;

import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

final class SelfSignedCa {

  static final X500Name SUBJECT = new X500NameBuilder(BCStyle.INSTANCE)
      .addRDN(BCStyle.O, "svc")
      .addRDN(BCStyle.CN, "svc CA")
      .build();

  /** Leaf certificates are backdated by as much, so agents with a slightly slow clock accept them. */
  static final Duration CLOCK_SKEW = Duration.ofHours(1);

  private SelfSignedCa() {
  }

  static X509Certificate create(KeyPair keyPair) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant notAfter = now.atOffset(ZoneOffset.UTC).plusYears(10).toInstant();
    SubjectPublicKeyInfo publicKey = SubjectPublicKeyInfo.getInstance(keyPair.getPublic().getEncoded());
    return CertificateTemplate.of(SUBJECT, SUBJECT, publicKey, now.minus(CLOCK_SKEW), notAfter)
        .extension(Extension.basicConstraints, true, new BasicConstraints(true))
        .extension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
        .signWith(keyPair.getPrivate());
  }
}
