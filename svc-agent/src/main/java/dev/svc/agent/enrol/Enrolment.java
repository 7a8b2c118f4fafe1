package dev.svc.agent.enrol;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.core.home.PrivateFiles;
import dev.svc.core.protocol.ErrorBody;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.CertificateAnswer;
import dev.svc.core.tls.Csr;
import dev.svc.core.tls.Fingerprint;
import dev.svc.core.tls.Keys;
import dev.svc.core.tls.Pem;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Enrolling a host (blocking): pin the server's CA by its fingerprint, then — over TLS that trusts
 * that CA alone — send a certificate signing request for a key made here, with the agent's token,
 * to {@code POST /api/v1/agents/certificate}, and write the certificates and {@code agent.yaml}.
 * The private key never leaves the host; the token is sent only once the CA is pinned. A clustered
 * server is named by its nodes, which share one CA.
 */
public final class Enrolment {

  /** Why enrolment stopped, in one sentence for the user. */
  public static final class EnrolmentException extends Exception {
    private static final long serialVersionUID = 1L;

    public EnrolmentException(String message) {
      super(message);
    }
  }

  private final AgentHome home;
  private final Path configFile;
  private final PrintStream out;
  private final Function<String, String> ask;

  /**
   * @param ask asks the user a question and returns the answer, or null when there is nobody to
   *     ask (not on a terminal)
   */
  public Enrolment(AgentHome home, Path configFile, PrintStream out, Function<String, String> ask) {
    this.home = home;
    this.configFile = configFile;
    this.out = out;
    this.ask = ask;
  }

  /** Questions go to the terminal; null when the process has none. */
  public static Function<String, String> consoleQuestion() {
    return question -> {
      Console console = System.console();
      return console == null ? null : console.readLine("%s", question);
    };
  }

  public static String hostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }

  /**
   * Enrols with the server at {@code server}: one URL, or the nodes of a cluster separated by commas.
   * The nodes share one CA: it is pinned from the first that answers, and every other that answers
   * must present the same one; the certificate request goes to the node it was pinned from.
   */
  public AgentConfig enrol(String server, String token, String name, int port, String bind, String modelDir,
      String shareSource, String shareMount, String pinnedFingerprint, boolean force) throws EnrolmentException {
    List<URI> uris = serverUris(server);
    if (bind != null && !AgentConfig.isBindAddress(bind)) {
      throw new EnrolmentException("--bind must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name, not '" + bind
          + "'");
    }
    if (Files.exists(configFile) && !force) {
      throw new EnrolmentException(configFile + " exists already: pass --force to enrol again");
    }
    AgentConfig.Tls tls = null;
    String fingerprint = null;
    String servers = String.join(", ", uris.stream().map(URI::toString).toList());
    if ("https".equals(uris.get(0).getScheme())) {
      Pinned pinned = pinClusterCa(uris, pinnedFingerprint);
      X509Certificate ca = pinned.ca();
      fingerprint = Fingerprint.sha256(ca);
      Issued issued = requestCertificate(pinned.from(), ca, token, name);
      PrivateFiles.writeReadable(home.caCertificate(), Pem.encodeCertificate(ca));
      PrivateFiles.writeReadable(home.clientCertificate(), issued.answer().certificatePem());
      PrivateFiles.write(home.clientKey(), issued.privateKeyPem());
      tls = new AgentConfig.Tls(home.clientCertificate().toString(), home.clientKey().toString(),
          home.caCertificate().toString());
      // the agent's own HTTPS API gets its certificate now, so that status and test stop can trust it at once
      dev.svc.agent.logs.LogServerVerticle.apiCertificate(home);
      out.println("Client certificate " + home.clientCertificate() + " (CN=" + name + ", valid until "
          + (issued.answer().notAfter() == null ? "(not given)" : issued.answer().notAfter()) + ")");
    } else {
      out.println("Warning: " + servers + (uris.size() == 1 ? " is" : " are") + " plain HTTP: the token travels"
          + " unencrypted and there is no mutual TLS (development only).");
    }
    AgentConfig config = new AgentConfig(uris.stream().map(URI::toString).toList(), token, name, port, bind, modelDir,
        shareSource, shareMount, fingerprint, tls, null, null);
    config.write(configFile);
    return config;
  }

  /** The URLs of {@code --server} (one, or several separated by commas): each checked, none twice, one scheme. */
  static List<URI> serverUris(String servers) throws EnrolmentException {
    List<URI> uris = new ArrayList<>();
    for (String server : AgentConfig.splitServers(servers)) {
      URI uri = serverUri(server);
      for (URI seen : uris) {
        if (seen.toString().equalsIgnoreCase(uri.toString())) {
          throw new EnrolmentException("--server names " + uri + " twice: give each node of the server once");
        }
        if (!seen.getScheme().equals(uri.getScheme())) {
          throw new EnrolmentException("--server mixes " + seen + " and " + uri + ": the nodes of one server share one"
              + " scheme and one CA");
        }
      }
      uris.add(uri);
    }
    if (uris.isEmpty()) {
      throw new EnrolmentException("--server must be a URL like https://svc.lab:8080, not '" + servers + "'");
    }
    return uris;
  }

  static URI serverUri(String server) throws EnrolmentException {
    URI uri;
    try {
      uri = URI.create(server.trim());
    } catch (IllegalArgumentException e) {
      throw new EnrolmentException("--server must be a URL like https://svc.lab:8080, not '" + server + "'");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("https") || scheme.equals("http")) || uri.getHost() == null
        || !(uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
        || uri.getRawQuery() != null || uri.getUserInfo() != null) {
      throw new EnrolmentException("--server must be a URL like https://svc.lab:8080 (scheme, host and port only), not '"
          + server + "'");
    }
    return URI.create(scheme + "://" + uri.getRawAuthority());
  }

  /** The CA pinned, and the node it was pinned from. */
  private record Pinned(X509Certificate ca, URI from) {
  }

  /**
   * Pins the CA of the first node that answers, then checks that every other node that answers
   * presents the same CA. One that does not answer now is only reported: the agent trusts nothing
   * but the pinned CA, so it will talk to that node only if it presents the same one.
   */
  private Pinned pinClusterCa(List<URI> uris, String pinnedFingerprint) throws EnrolmentException {
    Pinned pinned = null;
    List<String> unreachable = new ArrayList<>();
    for (URI uri : uris) {
      List<X509Certificate> chain;
      try {
        chain = ServerChain.fetch(uri);
      } catch (IOException e) {
        unreachable.add(uri + ": " + e.getMessage());
        continue;
      }
      X509Certificate ca = ServerChain.ca(chain);
      if (ca == null) {
        throw new EnrolmentException(uri + " presented no CA certificate with its own, so there is nothing to pin");
      }
      if (pinned == null) {
        pinned = new Pinned(pinCa(ca, pinnedFingerprint), uri);
      } else if (!Fingerprint.sha256(ca).equals(Fingerprint.sha256(pinned.ca()))) {
        throw new EnrolmentException(uri + " presents another CA (fingerprint " + Fingerprint.sha256(ca) + ") than "
            + pinned.from() + " (" + Fingerprint.sha256(pinned.ca()) + "): the nodes of one server share one CA;"
            + " nothing was written");
      }
    }
    if (pinned == null) {
      throw new EnrolmentException("Cannot reach " + String.join("; ", unreachable));
    }
    for (String node : unreachable) {
      out.println("Warning: cannot reach " + node + "; the agent will use that node only if it presents the same CA");
    }
    return pinned;
  }

  /** The server's CA, once its fingerprint matched the pinned one or the user accepted it. */
  private X509Certificate pinCa(X509Certificate ca, String pinned) throws EnrolmentException {
    String fingerprint = Fingerprint.sha256(ca);
    if (pinned != null) {
      if (!normalise(pinned).equals(normalise(fingerprint))) {
        throw new EnrolmentException("The server's CA has the fingerprint " + fingerprint + ", not the one given ("
            + pinned + "): refusing to send the token");
      }
      return ca;
    }
    out.println("The server's CA: " + ca.getSubjectX500Principal().getName());
    out.println("SHA-256 fingerprint: " + fingerprint);
    String answer = ask.apply("Is this the fingerprint `svc web` printed? [y/N] ");
    if (answer == null) {
      throw new EnrolmentException("Not on a terminal, so nobody can confirm the server's CA: check the fingerprint "
          + fingerprint + " against the one `svc web` printed and pass it as --ca-fingerprint");
    }
    if (!answer.trim().toLowerCase(Locale.ROOT).startsWith("y")) {
      throw new EnrolmentException("The server's CA was not accepted; nothing was written");
    }
    return ca;
  }

  private static String normalise(String fingerprint) {
    return fingerprint.replaceAll("[^0-9A-Fa-f]", "").toUpperCase(Locale.ROOT);
  }

  /** The certificate the server signed, and the private key made here for it (PEM). */
  private record Issued(CertificateAnswer answer, String privateKeyPem) {
  }

  private Issued requestCertificate(URI uri, X509Certificate ca, String token, String name) throws EnrolmentException {
    KeyPair keyPair = Keys.newEcP256();
    String csr = Csr.create(keyPair, name);
    HttpResponse<String> response;
    try {
      HttpClient client = HttpClient.newBuilder().sslContext(ServerChain.trusting(ca))
          .connectTimeout(Duration.ofSeconds(10)).build();
      HttpRequest.Builder request = HttpRequest.newBuilder(uri.resolve("/api/v1/agents/certificate"))
          .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("name", name).put("csr", csr).encode()));
      if (!token.isEmpty()) {
        request.header("Authorization", "Bearer " + token);
      }
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException | GeneralSecurityException e) {
      throw new EnrolmentException("The certificate request to " + uri + " failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EnrolmentException("Interrupted");
    }
    if (response.statusCode() != 201) {
      String why = ErrorBody.sentence(response.body()).orElse("HTTP " + response.statusCode());
      throw new EnrolmentException("The server refused the certificate request: " + why
          + (response.statusCode() == 401 || response.statusCode() == 403 ? " (check --token)" : ""));
    }
    CertificateAnswer answer = answer(response.body());
    X509Certificate issued = Pem.parseCertificate(answer.certificatePem());
    try {
      issued.verify(ca.getPublicKey());
    } catch (GeneralSecurityException e) {
      throw new EnrolmentException("The certificate the server returned is not signed by its pinned CA");
    }
    if (!issued.getPublicKey().equals(keyPair.getPublic())) {
      throw new EnrolmentException("The certificate the server returned is not for the key made here");
    }
    return new Issued(answer, Pem.encodePrivateKey(keyPair.getPrivate()));
  }

  private static CertificateAnswer answer(String body) throws EnrolmentException {
    try {
      return CertificateAnswer.parse(new JsonObject(body));
    } catch (BadMessage e) {
      throw new EnrolmentException("The server's certificate answer is malformed: " + e.getMessage());
    } catch (DecodeException | ClassCastException e) {
      throw new EnrolmentException("The server's certificate answer is not a JSON object");
    }
  }
}
