package dev.svc.core.tls;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

final class ServerCertificateFiles {

  static final String CERT_FILE = "server.pem";
  static final String KEY_FILE = "server-key.pem";

  private ServerCertificateFiles() {
  }

  static ServerCertificate ensure(CertificateAuthority ca, Supplier<LeafIssuer> issuer, Path certsDir, SubjectAltNames sans,
      Duration renewBefore) {
    Path certFile = certsDir.resolve(CERT_FILE);
    Path keyFile = certsDir.resolve(KEY_FILE);
    boolean existed = Files.exists(certFile) || Files.exists(keyFile);
    if (existed) {
      ServerCertificate current = reusable(ca, certFile, keyFile, sans, renewBefore);
      if (current != null) {
        return current;
      }
    }
    KeyPair keyPair = Keys.newEcP256();
    X509Certificate certificate =
        issuer.get().server(sans, SubjectPublicKeyInfo.getInstance(keyPair.getPublic().getEncoded()));
    // key first: a crash in between leaves a mismatched pair, which the next start replaces
    Pem.writePrivateKey(keyFile, keyPair.getPrivate());
    Pem.writeCertificate(certFile, certificate);
    return new ServerCertificate(Pem.encodeCertificate(certificate), Pem.encodePrivateKey(keyPair.getPrivate()),
        certFile, keyFile, existed ? ServerCertificate.Status.RENEWED : ServerCertificate.Status.CREATED,
        certificate.getNotAfter().toInstant());
  }

  /** The certificate on disk when it is ours, lasts beyond {@code renewBefore}, covers the names and fits the key. */
  private static ServerCertificate reusable(CertificateAuthority ca, Path certFile, Path keyFile,
      SubjectAltNames sans, Duration renewBefore) {
    X509Certificate certificate;
    PrivateKey key;
    try {
      certificate = Pem.readCertificate(certFile);
      key = Pem.readPrivateKey(keyFile);
    } catch (IllegalArgumentException | UncheckedIOException e) {
      return null;
    }
    Instant notAfter = certificate.getNotAfter().toInstant();
    boolean usable = ca.issued(certificate)
        && notAfter.minus(renewBefore).isAfter(Instant.now())
        && sans.coveredBy(certificate)
        && Keys.matches(key, certificate.getPublicKey());
    if (!usable) {
      return null;
    }
    return new ServerCertificate(Pem.encodeCertificate(certificate), Pem.encodePrivateKey(key), certFile, keyFile,
        ServerCertificate.Status.REUSED, notAfter);
  }
}
