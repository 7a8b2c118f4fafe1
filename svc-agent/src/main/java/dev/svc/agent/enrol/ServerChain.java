package dev.svc.agent.enrol;

import dev.svc.core.tls.TrustAnyServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * What a server presents before anything is trusted: its certificate chain, read over a TLS
 * handshake that checks nothing, so that {@code init} can show or compare the CA's fingerprint
 * before it sends the token. Blocking.
 */
final class ServerChain {

  private ServerChain() {
  }

  /** The chain the server at {@code uri} presents, leaf first. */
  static List<X509Certificate> fetch(URI uri) throws IOException {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new TrustAnyServer()}, new SecureRandom());
      int port = uri.getPort() > 0 ? uri.getPort() : 443;
      try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
        socket.connect(new InetSocketAddress(uri.getHost(), port), 10_000);
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        List<X509Certificate> chain = new ArrayList<>();
        for (Certificate certificate : socket.getSession().getPeerCertificates()) {
          chain.add((X509Certificate) certificate);
        }
        return chain;
      }
    } catch (GeneralSecurityException e) {
      throw new IOException("TLS handshake with " + uri + " failed: " + e.getMessage(), e);
    }
  }

  /** The CA of the chain: its last certificate when that one is a CA, else none (the server sent only its leaf). */
  static X509Certificate ca(List<X509Certificate> chain) {
    X509Certificate last = chain.get(chain.size() - 1);
    return chain.size() > 1 && last.getBasicConstraints() >= 0 ? last : null;
  }

  /** An SSL context that trusts {@code ca} alone. */
  static SSLContext trusting(X509Certificate ca) throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("svc-ca", ca);
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), new SecureRandom());
    return context;
  }
}
