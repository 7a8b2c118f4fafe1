package dev.svc.server.fleet;

import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;

/**
 * What the fleet simulator and the benchmarks read of the server's answer to a CSR
 * ({@code POST /api/v1/agents/certificate}, 201): the agent's client certificate, as PEM (whose
 * content the PEM parser checks when the certificate is used).
 */
public record CertificateAnswer(String certificatePem) {

  /** Longest PEM taken; an agent's certificate is about a kilobyte. */
  public static final int MAX_PEM = 16_384;

  public static CertificateAnswer parse(JsonObject body) {
    return new CertificateAnswer(Fields.limit("certificate", Fields.requireString(body, "certificate"), MAX_PEM));
  }
}
