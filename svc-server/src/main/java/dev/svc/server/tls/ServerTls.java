package dev.svc.server.tls;

import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.ServerCertificate;
import dev.svc.server.ServerConfig;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.KeyManagerFactory;

/**
 * The server's TLS material: the CA under {@code <home>/certs} (created on first launch), the
 * server certificate (reused, or renewed when near expiry) or custom --tls-cert/--tls-key, and the
 * CA that agents' client certificates must chain to (--tls-ca overrides it). Blocking: call it
 * before the event loop serves.
 */
public final class ServerTls {

  public static final Duration RENEW_BEFORE = Duration.ofDays(30);

  private final CertificateAuthority ca;
  private final CertificateAuthority clientCa;
  private final String certPem;
  private final String description;
  private final boolean servesCa;
  private final KeyManagerFactory keyManagers;

  private ServerTls(CertificateAuthority ca, CertificateAuthority clientCa, String certPem, String keyPem, String description) {
    this.ca = ca;
    this.clientCa = clientCa;
    this.certPem = certPem;
    this.description = description;
    var chain = dev.svc.core.tls.Pem.parseCertificates(certPem);
    this.servesCa = chain.contains(ca.certificate());
    this.keyManagers = keyManagers(chain, keyPem);
  }

  /**
   * The certificate chain and its key as the listeners' key manager. Made here rather than by
   * Vert.x from PEM options: Vert.x keeps them in a PKCS#12 store, whose key protection (10,000
   * rounds of PBKDF2, to store and again to read) was a tenth of a second of every start. This store
   * never leaves memory, so JKS's light protection is enough.
   */
  private static KeyManagerFactory keyManagers(java.util.List<java.security.cert.X509Certificate> chain,
      String keyPem) {
    java.security.PrivateKey key = dev.svc.core.tls.Pem.parsePrivateKey(keyPem);
    char[] password = "in-memory".toCharArray();
    try {
      KeyStore store = KeyStore.getInstance("JKS");
      store.load(null, null);
      store.setKeyEntry("server", key, password, chain.toArray(new java.security.cert.Certificate[0]));
      KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, password);
      return factory;
    } catch (java.security.GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("The server key and certificate cannot be used together: " + e.getMessage(), e);
    }
  }

  public static ServerTls prepare(ServerConfig config) {
    Path certs = config.home().certs();
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(certs);
    CertificateAuthority clientCa = ca;
    if (config.tlsCa() != null) {
      Path key = config.tlsCa().resolveSibling("ca-key.pem");
      dev.svc.core.home.PrivateFiles.warnIfShared(key);
      clientCa = Files.isRegularFile(key) && !config.tlsCa().equals(ca.caFile())
          ? CertificateAuthority.load(config.tlsCa(), key) : CertificateAuthority.trustOnly(config.tlsCa());
    }
    if (config.tlsCert() != null || config.tlsKey() != null) {
      if (config.tlsCert() == null || config.tlsKey() == null) {
        throw new IllegalArgumentException("--tls-cert and --tls-key must be given together");
      }
      // a key svc does not own is not changed, only reported when others can read it
      dev.svc.core.home.PrivateFiles.warnIfShared(config.tlsKey());
      return new ServerTls(ca, clientCa, read(config.tlsCert()), read(config.tlsKey()),
          "custom certificate " + config.tlsCert());
    }
    ServerCertificate server = ca.ensureServerCertificate(certs, ServerCertificate.defaultSans(config.sans()), RENEW_BEFORE);
    // the chain ends with the CA, so that `svc-agent init` can pin it by the fingerprint printed at first launch
    return new ServerTls(ca, clientCa, server.certificatePem() + ca.certificatePem(), server.privateKeyPem(),
        "server certificate " + server.certFile() + " (" + server.status().name().toLowerCase(java.util.Locale.ROOT)
            + ", valid until " + server.notAfter() + ")");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
  }

  /**
   * Options for the HTTPS listener: a client certificate is requested, not required (browsers share
   * the port). The handshakes run in BoringSSL where it loads on this platform (each agent's
   * connection is one full handshake with a client certificate; in the JDK 17 provider its P-256
   * and X25519 arithmetic was most of a fleet's enrolment CPU), else in the JDK's TLS.
   */
  public HttpServerOptions apply(HttpServerOptions options) {
    withCertificate(options);
    return options.setTrustOptions(new PemTrustOptions().addCertValue(
        io.vertx.core.buffer.Buffer.buffer(clientCa.certificatePem()))).setClientAuth(ClientAuth.REQUEST);
  }

  /**
   * Options for the TCP event-bus bridge: the HTTPS listener's certificate, so a client trusts it
   * with the same CA file; no client certificate is asked for, since every frame carries the token.
   */
  public NetServerOptions applyToBridge(NetServerOptions options) {
    return withCertificate(options);
  }

  private <T extends NetServerOptions> T withCertificate(T options) {
    if (nativeTls()) {
      options.setSslEngineOptions(new OpenSSLEngineOptions());
    }
    options.setSsl(true).setKeyCertOptions(KeyCertOptions.wrap(keyManagers));
    return options;
  }

  /** Whether the listener uses BoringSSL: it loads here and {@code SVC_TLS_ENGINE} is not {@code jdk}. */
  public static boolean nativeTls() {
    return !"jdk".equalsIgnoreCase(System.getenv("SVC_TLS_ENGINE")) && OpenSSLEngineOptions.isAvailable();
  }

  /** The DNS names and IP addresses in the server certificate's subject alternative names. */
  public java.util.List<String> certificateNames() {
    java.util.List<String> names = new java.util.ArrayList<>();
    try {
      var certificate = dev.svc.core.tls.Pem.parseCertificate(certPem);
      var sans = certificate.getSubjectAlternativeNames();
      if (sans != null) {
        for (java.util.List<?> san : sans) {
          Object type = san.get(0);
          if ((Integer.valueOf(2).equals(type) || Integer.valueOf(7).equals(type)) && san.get(1) instanceof String) {
            names.add((String) san.get(1));
          }
        }
      }
    } catch (java.security.cert.CertificateParsingException | RuntimeException e) {
      // a certificate without readable names adds none; the configured names still apply
    }
    return names;
  }

  /** The CA that issues agent certificates and whose fingerprint is printed. */
  public CertificateAuthority ca() {
    return ca;
  }

  /**
   * The fingerprint {@code svc-agent init --ca-fingerprint} pins: the CA's, when the chain this
   * server presents carries it (its own certificate); null for a custom certificate that does not.
   */
  public String pinnableFingerprint() {
    return servesCa ? ca.fingerprint() : null;
  }

  /** The CA agents' client certificates must chain to. */
  public CertificateAuthority clientCa() {
    return clientCa;
  }

  public String description() {
    return description;
  }
}
