package dev.svc.bench.client;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.PemTrustOptions;

/** How every client of svc run's engine checks an https engine: the one TLS setup they share. */
public final class TlsOptions {

  private TlsOptions() {
  }

  /**
   * Turns TLS on in {@code options} when {@code tls}, checking the host name against the certificate
   * and its chain against {@code trustedCa} (PEM CA certificates), or the JDK's default trust when
   * that is null; returns {@code options}.
   */
  public static HttpClientOptions apply(HttpClientOptions options, boolean tls, String trustedCa) {
    if (tls) {
      options.setSsl(true).setVerifyHost(true);
      if (trustedCa != null) {
        options.setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(trustedCa)));
      }
    }
    return options;
  }
}
