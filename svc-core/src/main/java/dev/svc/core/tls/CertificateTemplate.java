package dev.svc.core.tls;

import java.math.BigInteger;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

final class CertificateTemplate {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final X509v3CertificateBuilder builder;

  private CertificateTemplate(X509v3CertificateBuilder builder) {
    this.builder = builder;
  }

  /** A v3 certificate with a random serial and a subject key identifier; callers add the rest. */
  static CertificateTemplate of(X500Name issuer, X500Name subject, SubjectPublicKeyInfo publicKey,
      Instant notBefore, Instant notAfter) {
    X509v3CertificateBuilder builder = new X509v3CertificateBuilder(issuer, newSerial(),
        Date.from(notBefore), Date.from(notAfter), subject, publicKey);
    return new CertificateTemplate(builder)
        .extension(Extension.subjectKeyIdentifier, false, extensionUtils().createSubjectKeyIdentifier(publicKey));
  }

  static JcaX509ExtensionUtils extensionUtils() {
    try {
      return new JcaX509ExtensionUtils();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 (for key identifiers) is missing from this JVM", e);
    }
  }

  CertificateTemplate extension(ASN1ObjectIdentifier oid, boolean critical, ASN1Encodable value) {
    try {
      builder.addExtension(oid, critical, value);
    } catch (CertIOException e) {
      throw new IllegalStateException("Could not encode certificate extension " + oid, e);
    }
    return this;
  }

  X509Certificate signWith(PrivateKey signingKey) {
    try {
      var signer = new JcaContentSignerBuilder(Keys.signatureAlgorithm(signingKey)).setProvider(Keys.signatures())
          .build(signingKey);
      return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    } catch (OperatorCreationException | CertificateException e) {
      throw new IllegalStateException("Could not sign the certificate", e);
    }
  }

  // positive, at most 16 bytes, and unpredictable as the CA/Browser Forum asks
  private static BigInteger newSerial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }
}
