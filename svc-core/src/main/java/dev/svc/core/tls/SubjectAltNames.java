package dev.svc.core.tls;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.x509.GeneralName;

final class SubjectAltNames {

  private static final Pattern DNS_NAME = Pattern.compile("[a-z0-9_*-]+(\\.[a-z0-9_*-]+)*");

  private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
  private static final Pattern IPV4 = Pattern.compile(OCTET + "(\\." + OCTET + "){3}");
  /** What an IPv6 literal may hold; one that starts so is parsed by the JDK as a literal, never looked up. */
  private static final Pattern IPV6_CHARACTERS = Pattern.compile("[0-9a-fA-F:][0-9a-fA-F:.]*");

  /** {@code type} is a {@link GeneralName} tag; {@code value} is lowercase for DNS and canonical for IP. */
  record Entry(int type, String value) {
  }

  private final Set<Entry> entries;

  private SubjectAltNames(Set<Entry> entries) {
    this.entries = entries;
  }

  /** IPv4/IPv6 literals (brackets allowed) become IP names, anything else a DNS name; order is kept. */
  static SubjectAltNames of(Collection<String> names) {
    Set<Entry> entries = new LinkedHashSet<>();
    for (String name : names) {
      if (name != null && !name.isBlank()) {
        entries.add(parse(name.trim()));
      }
    }
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("A server certificate needs at least one DNS name or IP address.");
    }
    return new SubjectAltNames(entries);
  }

  /** The first DNS name, or the first address when there is none. */
  String commonName() {
    return entries.stream()
        .filter(e -> e.type() == GeneralName.dNSName)
        .findFirst()
        .orElse(entries.iterator().next())
        .value();
  }

  /** The names in order; Bouncy Castle's form is made by the issuer, so that a start need not load it. */
  Set<Entry> entries() {
    return entries;
  }

  /** True when every name here appears among the certificate's subject alternative names. */
  boolean coveredBy(X509Certificate certificate) {
    return namesIn(certificate).containsAll(entries);
  }

  private static Set<Entry> namesIn(X509Certificate certificate) {
    Set<Entry> found = new LinkedHashSet<>();
    Collection<List<?>> names;
    try {
      names = certificate.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      return found;
    }
    if (names == null) {
      return found;
    }
    for (List<?> name : names) {
      int type = (Integer) name.get(0);
      String value = String.valueOf(name.get(1));
      if (type == GeneralName.dNSName) {
        found.add(new Entry(type, value.toLowerCase(Locale.ROOT)));
      } else if (type == GeneralName.iPAddress && isIpLiteral(value)) {
        found.add(new Entry(type, address(value).getHostAddress()));
      }
    }
    return found;
  }

  private static Entry parse(String name) {
    String unbracketed = name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
    if (isIpLiteral(unbracketed)) {
      return new Entry(GeneralName.iPAddress, address(unbracketed).getHostAddress());
    }
    String dns = name.toLowerCase(Locale.ROOT);
    if (dns.endsWith(".")) {
      dns = dns.substring(0, dns.length() - 1);
    }
    if (!DNS_NAME.matcher(dns).matches()) {
      throw new IllegalArgumentException("'" + name + "' is neither an IP address nor a valid DNS name.");
    }
    return new Entry(GeneralName.dNSName, dns);
  }

  /** An IPv4 address of four decimal octets, or an IPv6 address (without a zone). */
  static boolean isIpLiteral(String text) {
    if (IPV4.matcher(text).matches()) {
      return true;
    }
    if (text.indexOf(':') < 0 || !IPV6_CHARACTERS.matcher(text).matches()) {
      return false;
    }
    try {
      InetAddress.getByName(text);
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  // only ever called with a validated literal, so no name lookup happens
  static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("'" + literal + "' is not an IP address.", e);
    }
  }
}
