package dev.svc.server.http;

import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.Fingerprint;
import io.vertx.ext.web.RoutingContext;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.function.Predicate;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Mutual TLS for agents. Browsers share the HTTPS port without certificates, so the TLS layer only
 * requests one; registration and heartbeat enforce it here. A certificate names one agent (its
 * subject CN, as {@code svc certs issue-agent <name>} and POST /api/v1/agents/certificate write it),
 * and speaks only for that agent: a CA-signed certificate of agent B does not register or
 * heartbeat agent A.
 */
final class ClientCertificates {

  private ClientCertificates() {
  }

  /**
   * The verified client certificate; 403 when there is none, the CA did not sign it, or it was
   * revoked ({@code revoked} takes its SHA-256 fingerprint): the agent it names was deleted or its
   * token rotated.
   */
  static X509Certificate require(RoutingContext ctx, CertificateAuthority ca, Predicate<String> revoked) {
    if (!ctx.request().isSSL()) {
      throw ApiError.forbidden("Client certificate required");
    }
    List<Certificate> chain;
    try {
      chain = ctx.request().connection().peerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      throw ApiError.forbidden("Client certificate required");
    }
    if (chain == null || chain.isEmpty() || !(chain.get(0) instanceof X509Certificate)
        || !ca.issued((X509Certificate) chain.get(0))) {
      throw ApiError.forbidden("Client certificate is not signed by this server's CA");
    }
    X509Certificate certificate = (X509Certificate) chain.get(0);
    if (revoked.test(Fingerprint.sha256(certificate))) {
      throw ApiError.forbidden("Client certificate was revoked: its agent was deleted or its token rotated;"
          + " enrol the host again with the agent's current token (svc-agent init --force)");
    }
    return certificate;
  }

  /** As {@link #require}, and the certificate must name {@code agentName}; 403 naming both otherwise. */
  static void requireFor(RoutingContext ctx, CertificateAuthority ca, Predicate<String> revoked, Guard guard,
      String agentName) {
    X509Certificate certificate = require(ctx, ca, revoked);
    // the CN is shown in the error and the log: a foreign CA's odd one is not echoed as it is
    String named = CertificateAuthority.agentName(certificate)
        .map(cn -> dev.svc.core.TextRule.problem(cn, false) == null ? cn : "(unprintable name)").orElse(null);
    if (named == null) {
      throw guard.refuse(ctx, ApiError.forbidden("Client certificate names no agent (its subject has no single CN);"
          + " issue one with 'svc certs issue-agent " + agentName + "'"), true);
    }
    if (!named.equals(agentName)) {
      throw guard.refuse(ctx, ApiError.forbidden("Client certificate is issued to agent '" + named + "', not '"
          + agentName + "'; each agent needs its own certificate ('svc certs issue-agent " + agentName + "')"), true);
    }
  }
}
