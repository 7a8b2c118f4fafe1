package dev.svc.server.http;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The host names this server answers to: localhost, the loopback addresses, this machine's name,
 * --san names, the --host address and the names in the server certificate. A DNS-rebinding page
 * reaches the server under the attacker's own name, and the browser sends that name in the Host
 * header; an IP literal in Host cannot be an attacker's name (the browser connected to that very
 * address), so IP literals are always accepted.
 */
public final class HostAllowlist {

  private static final Pattern IPV4 =
      Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9a-f:.]+(%[0-9a-z._-]+)?");

  private final Set<String> names = new LinkedHashSet<>();
  private final List<String> wildcardSuffixes = new ArrayList<>();

  private HostAllowlist(Collection<String> configured) {
    for (String name : configured) {
      if (name == null || name.isBlank()) {
        continue;
      }
      String n = normalize(name);
      if (n.startsWith("*.")) {
        wildcardSuffixes.add(n.substring(1));
      } else {
        names.add(n);
      }
    }
  }

  public static HostAllowlist of(Collection<String> names) {
    return new HostAllowlist(names);
  }

  /** Whether a request whose Host header names {@code host} (without port) is for this server. */
  public boolean allows(String host) {
    if (host == null) {
      return true; // no Host header: not a browser, which always sends one
    }
    String h = normalize(host);
    if (isIpLiteral(h) || names.contains(h)) {
      return true;
    }
    for (String suffix : wildcardSuffixes) {
      // a certificate's "*.example.com" covers exactly one more label
      if (h.endsWith(suffix) && h.length() > suffix.length() && h.indexOf('.') == h.length() - suffix.length()) {
        return true;
      }
    }
    return false;
  }

  public Set<String> names() {
    return Set.copyOf(names);
  }

  static boolean isIpLiteral(String host) {
    return IPV4.matcher(host).matches() || host.indexOf(':') >= 0 && IPV6.matcher(host).matches();
  }

  private static String normalize(String host) {
    String h = host.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    while (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return h;
  }
}
