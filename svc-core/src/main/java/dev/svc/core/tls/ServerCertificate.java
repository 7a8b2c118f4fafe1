package dev.svc.core.tls;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The server's TLS identity on disk, and whether this start created, kept or replaced it. */
public record ServerCertificate(String certificatePem, String privateKeyPem, Path certFile, Path keyFile,
    Status status, Instant notAfter) {

  /** Tells the operator (and the log) whether agents will see a new certificate. */
  public enum Status { CREATED, REUSED, RENEWED }

  /** localhost, 127.0.0.1, ::1, this machine's host name when it can be found, then {@code extra}; in that order. */
  public static Set<String> defaultSans(List<String> extra) {
    Set<String> sans = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
    try {
      String hostName = InetAddress.getLocalHost().getHostName();
      if (hostName != null && !hostName.isBlank()) {
        sans.add(hostName);
      }
    } catch (Exception e) {
      // no resolvable host name: the loopback names and the extras still work
    }
    if (extra != null) {
      extra.stream().filter(s -> s != null && !s.isBlank()).map(String::trim).forEach(sans::add);
    }
    return sans;
  }

  @Override
  public String toString() {
    return "ServerCertificate[certFile=" + certFile + ", keyFile=" + keyFile + ", status=" + status
        + ", notAfter=" + notAfter + ", privateKeyPem=<redacted>]";
  }
}
