package dev.svc.bench.cli;

import dev.svc.bench.run.EngineTarget;
import dev.svc.engines.codec.EngineCodec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Locale;

/**
 * {@code --endpoint URL} and {@code --ca FILE} read into the engine to benchmark: http or https,
 * host, port (80 and 443 by default) and the path the engine's API sits under. Anything in the URL
 * that a request could not honour (another scheme, user information, a query, a fragment) is
 * refused with a sentence rather than dropped.
 */
final class EndpointUrl {

  private EndpointUrl() {
  }

  /**
   * The engine at {@code endpoint}, trusting the CA certificates in {@code ca} (null: the JDK's
   * default trust).
   *
   * @throws IllegalArgumentException with the sentence for the user when either cannot be honoured
   */
  static EngineTarget target(String endpoint, Path ca, String modelName, EngineCodec codec, String image) {
    if (!endpoint.contains("://")) {
      throw new IllegalArgumentException("--endpoint must be a URL that starts with http:// or https://, e.g."
          + " http://127.0.0.1:8000 or https://gpu-1/llm");
    }
    URI uri;
    try {
      uri = new URI(endpoint);
    } catch (URISyntaxException e) {
      // the reason and the place, not the input: it may hold a password
      throw new IllegalArgumentException("--endpoint is not a URL: " + e.getReason() + " at index " + e.getIndex());
    }
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException("--endpoint carries user information (user@ or user:password@ before the host),"
          + " which svc run does not send: give the URL without it");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("--endpoint " + endpoint + ": svc run speaks http and https, not '" + scheme
          + "' (a URL such as http://HOST:PORT/PREFIX)");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("--endpoint " + endpoint + " has no host, or one that is not a valid host name"
          + " (a URL such as " + scheme + "://HOST:PORT/PREFIX)");
    }
    if (uri.getRawQuery() != null) {
      throw new IllegalArgumentException("--endpoint " + endpoint + " has a query (?…): the engine's API path goes after"
          + " the endpoint's path, and a query cannot stay there; remove it");
    }
    if (uri.getRawFragment() != null) {
      throw new IllegalArgumentException("--endpoint " + endpoint + " has a fragment (#…), which is never sent to a"
          + " server; remove it");
    }
    boolean tls = scheme.equals("https");
    int port = uri.getPort() == -1 ? (tls ? 443 : 80) : uri.getPort();
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("--endpoint " + endpoint + ": the port must be from 1 to 65535");
    }
    if (ca != null && !tls) {
      throw new IllegalArgumentException("--ca trusts the CA of an https endpoint, and " + endpoint
          + " is plain http: drop --ca, or use https://");
    }
    String host = uri.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
    return new EngineTarget(tls, host, port, path, modelName, codec, image, ca == null ? null : trustedCa(ca));
  }

  /** The PEM text of {@code ca}, which must hold at least one certificate. */
  private static String trustedCa(Path ca) {
    if (!Files.exists(ca)) {
      throw new IllegalArgumentException("--ca " + ca + " does not exist");
    }
    if (!Files.isRegularFile(ca)) {
      throw new IllegalArgumentException("--ca " + ca + " is not a file");
    }
    String pem;
    try {
      pem = new String(Files.readAllBytes(ca), StandardCharsets.ISO_8859_1);
    } catch (AccessDeniedException e) {
      throw new IllegalArgumentException("--ca " + ca + " cannot be read: permission denied");
    } catch (IOException e) {
      throw new IllegalArgumentException("--ca " + ca + " cannot be read: " + e.getMessage());
    }
    boolean holdsCertificate;
    try {
      holdsCertificate = pem.contains("-----BEGIN CERTIFICATE-----") && !CertificateFactory.getInstance("X.509")
          .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.ISO_8859_1))).isEmpty();
    } catch (CertificateException e) {
      holdsCertificate = false;
    }
    if (!holdsCertificate) {
      throw new IllegalArgumentException("--ca " + ca + " holds no PEM certificate (-----BEGIN CERTIFICATE-----):"
          + " give the certificate of the CA that signed the endpoint's certificate");
    }
    return pem;
  }
}
