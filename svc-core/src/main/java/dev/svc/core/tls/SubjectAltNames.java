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
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.util.IPAddress;

final class SubjectAltNames {

  private static final Pattern DNS_NAME = Pattern.compile("[a-z0-9_*-]+(\\.[a-z0-9_*-]+)*");

  /** {@code type} is a {@link GeneralName} tag; {@code value} is lowercase for DNS and canonical for IP. */
  private record Entry(int type, String value) {
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

  GeneralNames toGeneralNames() {
    GeneralName[] names = entries.stream()
        .map(e -> e.type() == GeneralName.iPAddress
            ? new GeneralName(GeneralName.iPAddress, new DEROctetString(address(e.value()).getAddress()))
            : new GeneralName(GeneralName.dNSName, e.value()))
        .toArray(GeneralName[]::new);
    return new GeneralNames(names);
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
      } else if (type == GeneralName.iPAddress && IPAddress.isValid(value)) {
        found.add(new Entry(type, address(value).getHostAddress()));
      }
    }
    return found;
  }

  private static Entry parse(String name) {
    String unbracketed = name.startsWith("[") && name.endsWith("]") ? name.substring(1, name.length() - 1) : name;
    if (IPAddress.isValid(unbracketed)) {
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

  // only ever called with a validated literal, so no name lookup happens
  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("'" + literal + "' is not an IP address.", e);
    }
  }
}
