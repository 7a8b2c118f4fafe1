package dev.svc.perf.fleet;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * What {@code svc fleet simulate} runs.
 *
 * @param server the server's base URL (scheme, host, port)
 * @param agents how many virtual agents
 * @param intervalS each agent's heartbeat interval
 * @param testsPerMinute quick tests the simulator creates for its idle agents, 0 for none
 * @param duration how long the fleet runs, counted from the first agent's start
 * @param ramp the agents start spread over this span (null: one interval)
 * @param ca the server's CA certificate (PEM) for an https server, else null
 * @param token the server's global token (provisions the agents, creates tests), or null on an open server
 * @param namePrefix agents are named {@code <prefix>-00001} and so on
 * @param sharedConnections 0: one kept-alive connection per agent, as real agents have; N: the agents
 *     share a pool of N kept-alive connections (plain HTTP only: over TLS a connection carries one
 *     agent's client certificate)
 * @param keepAgents leave the agents on the server at the end instead of deleting them
 * @param enrolConcurrency agents enrolled (provisioned, certified) at the same time
 */
public record FleetOptions(
    URI server,
    int agents,
    int intervalS,
    double testsPerMinute,
    Duration duration,
    Duration ramp,
    Path ca,
    String token,
    String namePrefix,
    int sharedConnections,
    boolean keepAgents,
    int enrolConcurrency) {

  public FleetOptions {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(namePrefix, "namePrefix");
    if (agents < 1 || agents > 1_000_000) {
      throw new IllegalArgumentException("--agents must be between 1 and 1000000, got " + agents);
    }
    if (intervalS < 1 || intervalS > 300) {
      throw new IllegalArgumentException("--interval must be between 1 and 300 seconds, got " + intervalS);
    }
    if (!(testsPerMinute >= 0) || testsPerMinute > 60_000) {
      throw new IllegalArgumentException("--tests-per-minute must be between 0 and 60000, got " + testsPerMinute);
    }
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("--duration must be positive");
    }
    if (ramp == null) {
      ramp = Duration.ofSeconds(intervalS);
    }
    if (ramp.isNegative() || ramp.isZero()) {
      throw new IllegalArgumentException("--ramp must be positive");
    }
    if (sharedConnections < 0) {
      throw new IllegalArgumentException("--shared-connections must not be negative");
    }
    if (sharedConnections > 0 && https(server)) {
      throw new IllegalArgumentException("--shared-connections works on plain HTTP only: over HTTPS each agent presents"
          + " its own client certificate, so it needs a connection of its own");
    }
    if (enrolConcurrency < 1) {
      throw new IllegalArgumentException("--enrol-concurrency must be at least 1");
    }
    if (!namePrefix.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
      throw new IllegalArgumentException("--name-prefix must be letters, digits, '.', '_' or '-' (at most 64), got '"
          + namePrefix + "'");
    }
    if (https(server) && ca == null) {
      throw new IllegalArgumentException("--ca is required for an https server: its CA certificate (the server prints"
          + " where it is, e.g. ~/.svc/certs/ca.pem)");
    }
  }

  public boolean https() {
    return https(server);
  }

  private static boolean https(URI uri) {
    return "https".equalsIgnoreCase(uri.getScheme());
  }

  public int port() {
    return server.getPort() > 0 ? server.getPort() : https() ? 443 : 80;
  }

  public String host() {
    return server.getHost();
  }

  /** The agent of number {@code i} (from 0), as it registers. */
  public String agentName(int i) {
    return String.format(Locale.ROOT, "%s-%05d", namePrefix, i + 1);
  }

  /** A server URL of scheme, host and port only. */
  public static URI serverUri(String text) {
    URI uri;
    try {
      uri = URI.create(text.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--server must be a URL like https://svc.lab:8080, not '" + text + "'");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("https") || scheme.equals("http")) || uri.getHost() == null
        || !(uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/"))
        || uri.getRawQuery() != null || uri.getUserInfo() != null) {
      throw new IllegalArgumentException("--server must be a URL like https://svc.lab:8080 (scheme, host and port only),"
          + " not '" + text + "'");
    }
    return URI.create(scheme + "://" + uri.getRawAuthority());
  }

  /** "90", "90s", "5m", "1h", "1m30s" → a duration. */
  public static Duration parseDuration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.matches("\\d+")) {
      return Duration.ofSeconds(Long.parseLong(t));
    }
    if (!t.matches("(\\d+h)?(\\d+m)?(\\d+s)?") || t.isEmpty()) {
      throw new IllegalArgumentException("--duration must be like 90s, 5m, 1h or 1m30s, not '" + text + "'");
    }
    Duration d = Duration.ZERO;
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)([hms])").matcher(t);
    while (m.find()) {
      long n = Long.parseLong(m.group(1));
      d = d.plus(switch (m.group(2)) {
        case "h" -> Duration.ofHours(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofSeconds(n);
      });
    }
    return d;
  }
}
