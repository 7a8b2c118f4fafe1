package dev.svc.core.tls;

import java.time.Instant;

/** What the server hands back to an agent that sent a CSR: its certificate and the CA to trust the server with. */
public record IssuedCertificate(String certificatePem, String caCertificatePem, String fingerprint, Instant notAfter) {
}
