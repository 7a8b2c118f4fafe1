package dev.svc.core.protocol;

import io.vertx.core.json.JsonObject;

/**
 * The server's answer to an agent's certificate request ({@code POST /api/v1/agents/certificate},
 * 201): the client certificate it signed, its CA, the certificate's fingerprint and when it
 * expires. The server writes it with {@link #toJson}; {@code svc-agent init} reads it with
 * {@link #parse}, and checks the certificate itself (its signer, its key) before it keeps it.
 *
 * @param certificatePem the signed certificate, PEM
 * @param caPem the CA's certificate, PEM; null when the server sent none
 * @param fingerprint the certificate's SHA-256 fingerprint; null when the server sent none
 * @param notAfter when the certificate expires, as the server writes timestamps; null when not given
 */
public record CertificateAnswer(String certificatePem, String caPem, String fingerprint, String notAfter) {

  /** Longest PEM taken: a certificate is a few kilobytes, a chain a few times that. */
  public static final int MAX_PEM = 65_536;

  public static CertificateAnswer parse(JsonObject body) {
    // kept as sent, not trimmed: the agent writes it to its certificate file as it is
    String certificate = Fields.optString(body, "certificate", null);
    if (certificate == null || certificate.isBlank()) {
      throw new BadMessage("Field 'certificate' is required");
    }
    return new CertificateAnswer(
        Fields.text("certificate", certificate, MAX_PEM, true),
        Fields.text("ca", Fields.optString(body, "ca", null), MAX_PEM, true),
        Fields.line("fingerprint", Fields.optString(body, "fingerprint", null), 128),
        Fields.line("not_after", Fields.optString(body, "not_after", null), 64));
  }

  public JsonObject toJson() {
    return new JsonObject().put("certificate", certificatePem).put("ca", caPem).put("fingerprint", fingerprint)
        .put("not_after", notAfter);
  }
}
