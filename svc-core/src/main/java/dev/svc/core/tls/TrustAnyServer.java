package dev.svc.core.tls;

import java.security.cert.X509Certificate;
import javax.net.ssl.X509TrustManager;

/**
 * Trusts every certificate. Only for a connection whose trust is decided elsewhere: reading a
 * server's chain to pin its CA by fingerprint, or polling the health of a server this process
 * just started.
 */
public final class TrustAnyServer implements X509TrustManager {

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) {
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) {
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
