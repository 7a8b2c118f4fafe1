package dev.svc.server.http;

import dev.svc.core.tls.CertificateAuthority;
import io.vertx.ext.web.RoutingContext;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Mutual TLS for agents. Browsers share the HTTPS port without certificates, so the TLS layer only
 * requests one; registration and heartbeat enforce it here.
 */
final class ClientCertificates {

  private ClientCertificates() {
  }

  static void require(RoutingContext ctx, CertificateAuthority ca) {
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
  }
}
