package dev.svc.core.tls;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.ProviderException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;

/** svc runs its own small CA so agents pin one root and the server can mint server and agent certificates offline. */
public final class CertificateAuthority {

  static final String CA_FILE = "ca.pem";
  static final String CA_KEY_FILE = "ca-key.pem";

  private static final int KEY_CERT_SIGN = 5;

  private final X509Certificate certificate;
  private final String certificatePem;
  private final String fingerprint;
  private final PrivateKey key;
  private volatile LeafIssuer issuer;
  private final Path caFile;
  private final boolean created;

  /** How many verified certificates {@link #issued} remembers: more than the agents of a large fleet. */
  static final int VERIFIED_KEPT = 200_000;

  private final Map<X509Certificate, Boolean> verified = Collections.synchronizedMap(
      new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<X509Certificate, Boolean> eldest) {
          return size() > VERIFIED_KEPT;
        }
      });

  private CertificateAuthority(X509Certificate certificate, PrivateKey key, Path caFile, boolean created) {
    this.certificate = certificate;
    this.certificatePem = Pem.encodeCertificate(certificate);
    this.fingerprint = Fingerprint.sha256(certificate);
    this.key = key;
    this.caFile = caFile;
    this.created = created;
  }

  /**
   * The CA in {@code certsDir/ca.pem} + {@code ca-key.pem}, or a new EC P-256 CA written there when neither exists.
   * Refuses when only one of the two files exists rather than silently replacing a CA that agents may trust.
   */
  public static CertificateAuthority loadOrCreate(Path certsDir) {
    Path certFile = certsDir.resolve(CA_FILE);
    Path keyFile = certsDir.resolve(CA_KEY_FILE);
    // the CA's directory and key are owner-only: whoever reads the key can mint agents and servers
    dev.svc.core.home.PrivateFiles.directory(certsDir);
    dev.svc.core.home.PrivateFiles.tighten(keyFile);
    boolean hasCert = Files.exists(certFile);
    boolean hasKey = Files.exists(keyFile);
    if (hasCert && hasKey) {
      return load(certFile, keyFile);
    }
    if (hasCert || hasKey) {
      Path present = hasCert ? certFile : keyFile;
      Path missing = hasCert ? keyFile : certFile;
      throw new IllegalStateException("Found " + present + " but not " + missing
          + "; restore the missing file, or delete " + present + " to create a new CA (agents must then re-enrol).");
    }
    KeyPair keyPair = Keys.newEcP256();
    X509Certificate certificate = SelfSignedCa.create(keyPair);
    Pem.writePrivateKey(keyFile, keyPair.getPrivate());
    Pem.writeCertificate(certFile, certificate);
    return new CertificateAuthority(certificate, keyPair.getPrivate(), certFile, true);
  }

  /** A custom CA: the certificate must be a CA certificate and the key must be its private key. */
  public static CertificateAuthority load(Path caCertPem, Path caKeyPem) {
    X509Certificate certificate = Pem.readCertificate(caCertPem);
    PrivateKey key = Pem.readPrivateKey(caKeyPem);
    if (certificate.getBasicConstraints() < 0) {
      throw new IllegalArgumentException(caCertPem + " is not a CA certificate (BasicConstraints CA=true is missing).");
    }
    boolean[] keyUsage = certificate.getKeyUsage();
    if (keyUsage != null && !keyUsage[KEY_CERT_SIGN]) {
      throw new IllegalArgumentException(caCertPem + " may not sign certificates (its KeyUsage lacks keyCertSign).");
    }
    if (!Keys.matches(key, certificate.getPublicKey())) {
      throw new IllegalArgumentException(caKeyPem + " is not the private key of the certificate in " + caCertPem + ".");
    }
    return new CertificateAuthority(certificate, key, caCertPem, false);
  }

  /** A CA known by its certificate only: it can check certificates but not issue them. */
  public static CertificateAuthority trustOnly(Path caCertPem) {
    return new CertificateAuthority(Pem.readCertificate(caCertPem), null, caCertPem, false);
  }

  public X509Certificate certificate() {
    return certificate;
  }

  public String certificatePem() {
    return certificatePem;
  }

  /** SHA-256 of the CA certificate's DER, e.g. {@code AA:BB:...}. */
  public String fingerprint() {
    return fingerprint;
  }

  /** True when this call generated the CA. */
  public boolean created() {
    return created;
  }

  public Path caFile() {
    return caFile;
  }

  /** False for a {@link #trustOnly} CA. */
  public boolean canIssue() {
    return key != null;
  }

  /**
   * True when the certificate was signed by this CA and is valid now. A signature once verified is
   * remembered (the latest {@link #VERIFIED_KEPT} certificates): every heartbeat of every agent
   * presents its certificate, and an EC verification costs more than the rest of a heartbeat.
   */
  public boolean issued(X509Certificate candidate) {
    // until Bouncy Castle is loaded (preload), the JDK verifies: slower, but nothing waits for the loading
    return issued(candidate, Keys.signaturesIfLoaded());
  }

  /** As {@link #issued(X509Certificate)}, verifying with this provider (null: the JDK's). */
  boolean issued(X509Certificate candidate, Provider signatures) {
    if (candidate == null || !candidate.getIssuerX500Principal().equals(certificate.getSubjectX500Principal())) {
      return false;
    }
    try {
      if (!verified.containsKey(candidate)) {
        if (signatures == null) {
          candidate.verify(certificate.getPublicKey());
        } else {
          candidate.verify(certificate.getPublicKey(), signatures);
        }
        verified.put(candidate, Boolean.TRUE);
      }
      candidate.checkValidity();
      return true;
    } catch (GeneralSecurityException | ProviderException e) {
      return false;
    }
  }

  /**
   * Loads what checking agents' certificates uses (Bouncy Castle's signatures, its name parsing),
   * blocking for a fraction of a second: a server calls it off its event loops once it serves, so
   * that neither its start nor its first agents wait for it.
   */
  public void preload() {
    Keys.signatures();
    agentName(certificate);
    issued(certificate);
  }

  /**
   * {@code certsDir/server.pem} + {@code server-key.pem}: kept when issued by this CA, valid for longer than
   * {@code renewBefore} and covering every name in {@code sans}; otherwise replaced by a new 397-day certificate
   * whose subject alternative names are {@code sans} (IP literals as IP names, the rest as DNS names).
   */
  public ServerCertificate ensureServerCertificate(Path certsDir, Set<String> sans, Duration renewBefore) {
    Objects.requireNonNull(sans, "sans");
    Objects.requireNonNull(renewBefore, "renewBefore");
    requireKey();
    // the issuer only when a certificate is made: a start that reuses one does without Bouncy Castle
    return ServerCertificateFiles.ensure(this, this::issuer, certsDir, SubjectAltNames.of(sans), renewBefore);
  }

  /**
   * A 397-day client certificate for {@code CN=<agentName>,O=svc agents} on the CSR's key; the CSR's own subject
   * is ignored. Throws IllegalArgumentException when the CSR cannot be parsed or its signature is wrong.
   */
  public IssuedCertificate issueFromCsr(String csrPem, String agentName) {
    LeafIssuer leafIssuer = issuer();
    X500Name subject = LeafIssuer.agentSubject(agentName);
    PKCS10CertificationRequest request = Csr.parseVerified(csrPem);
    X509Certificate issued = leafIssuer.client(subject, request.getSubjectPublicKeyInfo());
    return new IssuedCertificate(Pem.encodeCertificate(issued), certificatePem, Fingerprint.sha256(issued),
        issued.getNotAfter().toInstant());
  }

  /** Like {@link #issueFromCsr} but with a fresh EC P-256 key made here, for agents set up by the operator. */
  public IssuedKeyPair issueClientKeyPair(String agentName) {
    LeafIssuer leafIssuer = issuer();
    X500Name subject = LeafIssuer.agentSubject(agentName);
    KeyPair keyPair = Keys.newEcP256();
    X509Certificate issued =
        leafIssuer.client(subject, SubjectPublicKeyInfo.getInstance(keyPair.getPublic().getEncoded()));
    return new IssuedKeyPair(Pem.encodeCertificate(issued), Pem.encodePrivateKey(keyPair.getPrivate()),
        certificatePem, Fingerprint.sha256(issued), issued.getNotAfter().toInstant());
  }

  /**
   * The agent a client certificate was issued to: the single common name of its subject, as
   * {@link #issueFromCsr} and {@link #issueClientKeyPair} write it. Empty when the subject has no
   * CN, several, or one that is not a string.
   */
  public static Optional<String> agentName(X509Certificate certificate) {
    X500Name subject = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
    RDN[] names = subject.getRDNs(BCStyle.CN);
    if (names.length != 1 || names[0].isMultiValued()) {
      return Optional.empty();
    }
    ASN1Encodable value = names[0].getFirst().getValue();
    return value instanceof ASN1String ? Optional.of(((ASN1String) value).getString()) : Optional.empty();
  }

  private void requireKey() {
    if (key == null) {
      throw new IllegalStateException("The CA from " + caFile
          + " was loaded without its private key (trust-only): it can verify certificates but cannot issue them.");
    }
  }

  private LeafIssuer issuer() {
    requireKey();
    LeafIssuer made = issuer;
    if (made == null) {
      // made on first use: it needs Bouncy Castle, which a server's start does without
      synchronized (this) {
        if (issuer == null) {
          issuer = new LeafIssuer(certificate, key);
        }
        made = issuer;
      }
    }
    return made;
  }
}
