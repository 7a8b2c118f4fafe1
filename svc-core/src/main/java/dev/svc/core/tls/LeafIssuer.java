package dev.svc.core.tls;

import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;

final class LeafIssuer {

  /** The CA/Browser Forum maximum; clients such as browsers reject longer-lived leaf certificates. */
  static final Duration VALIDITY = Duration.ofDays(397);

  /** The X.509 upper bound for a common name (ub-common-name). */
  private static final int MAX_AGENT_NAME_LENGTH = 64;

  private final X509Certificate ca;
  private final PrivateKey caKey;
  private final X500Name issuer;
  private final AuthorityKeyIdentifier authorityKeyId;

  LeafIssuer(X509Certificate ca, PrivateKey caKey) {
    this.ca = ca;
    this.caKey = caKey;
    try {
      X509CertificateHolder holder = new JcaX509CertificateHolder(ca);
      this.issuer = holder.getSubject();
      SubjectKeyIdentifier caKeyId = SubjectKeyIdentifier.fromExtensions(holder.getExtensions());
      this.authorityKeyId = caKeyId != null
          ? new AuthorityKeyIdentifier(caKeyId.getKeyIdentifier())
          : CertificateTemplate.extensionUtils().createAuthorityKeyIdentifier(holder.getSubjectPublicKeyInfo());
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException("The CA certificate cannot be DER-encoded.", e);
    }
  }

  X509Certificate server(SubjectAltNames sans, SubjectPublicKeyInfo publicKey) {
    X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, sans.commonName()).build();
    return leaf(subject, publicKey)
        .extension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
        .extension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
        .extension(Extension.subjectAlternativeName, false, generalNames(sans))
        .signWith(caKey);
  }

  private static GeneralNames generalNames(SubjectAltNames sans) {
    GeneralName[] names = sans.entries().stream()
        .map(e -> e.type() == GeneralName.iPAddress
            ? new GeneralName(GeneralName.iPAddress, new DEROctetString(SubjectAltNames.address(e.value()).getAddress()))
            : new GeneralName(GeneralName.dNSName, e.value()))
        .toArray(GeneralName[]::new);
    return new GeneralNames(names);
  }

  X509Certificate client(X500Name subject, SubjectPublicKeyInfo publicKey) {
    return leaf(subject, publicKey)
        .extension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
        .extension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth))
        .signWith(caKey);
  }

  /** {@code CN=<agentName>,O=svc agents}, built RDN by RDN so a name cannot smuggle in extra attributes. */
  static X500Name agentSubject(String agentName) {
    if (agentName == null || agentName.isBlank()) {
      throw new IllegalArgumentException("The agent name must not be blank.");
    }
    if (agentName.length() > MAX_AGENT_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "The agent name is longer than " + MAX_AGENT_NAME_LENGTH + " characters, the limit for a certificate name.");
    }
    return new X500NameBuilder(BCStyle.INSTANCE)
        .addRDN(BCStyle.O, "svc agents")
        .addRDN(BCStyle.CN, agentName)
        .build();
  }

  private CertificateTemplate leaf(X500Name subject, SubjectPublicKeyInfo publicKey) {
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant caNotAfter = ca.getNotAfter().toInstant();
    if (!caNotAfter.isAfter(now)) {
      throw new IllegalStateException("The CA certificate expired on " + caNotAfter + "; it can no longer issue.");
    }
    Instant notBefore = latest(now.minus(SelfSignedCa.CLOCK_SKEW), ca.getNotBefore().toInstant());
    Instant notAfter = earliest(now.plus(VALIDITY), caNotAfter);
    return CertificateTemplate.of(issuer, subject, publicKey, notBefore, notAfter)
        .extension(Extension.basicConstraints, true, new BasicConstraints(false))
        .extension(Extension.authorityKeyIdentifier, false, authorityKeyId);
  }

  private static Instant latest(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  private static Instant earliest(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
