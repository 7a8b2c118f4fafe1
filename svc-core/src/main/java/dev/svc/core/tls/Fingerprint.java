package dev.svc.core.tls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;

/** Operators compare CA fingerprints by eye when pinning an agent to a server, so they use the familiar AA:BB form. */
public final class Fingerprint {

  private static final HexFormat HEX = HexFormat.ofDelimiter(":").withUpperCase();

  private Fingerprint() {
  }

  /** SHA-256 of the certificate's DER encoding as uppercase hex bytes joined by ':'. */
  public static String sha256(X509Certificate certificate) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
      return HEX.formatHex(digest);
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException("The certificate cannot be DER-encoded.", e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
