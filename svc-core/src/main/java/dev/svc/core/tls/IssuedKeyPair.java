package dev.svc.core.tls;

import java.time.Instant;

/** For {@code svc certs issue-agent}: a whole client identity, key included, made on the operator's behalf. */
public record IssuedKeyPair(String certificatePem, String privateKeyPem, String caCertificatePem,
    String fingerprint, Instant notAfter) {

  @Override
  public String toString() {
    return "IssuedKeyPair[fingerprint=" + fingerprint + ", notAfter=" + notAfter + ", privateKeyPem=<redacted>]";
  }
}
