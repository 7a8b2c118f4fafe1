package dev.svc.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerCertificateTest {

  private static final Duration RENEW_BEFORE = Duration.ofDays(30);
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final int DNS = 2;
  private static final int IP = 7;

  @TempDir
  Path dir;

  private CertificateAuthority ca;

  @BeforeEach
  void createCa() {
    ca = CertificateAuthority.loadOrCreate(dir);
  }

  @Test
  void serverCertificateCarriesRequestedSans() throws Exception {
    ServerCertificate server = ca.ensureServerCertificate(dir,
        new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1", "bench.example.org")), RENEW_BEFORE);

    X509Certificate cert = Pem.parseCertificate(server.certificatePem());
    Set<String> dnsNames = new LinkedHashSet<>();
    Set<InetAddress> addresses = new LinkedHashSet<>();
    for (List<?> san : cert.getSubjectAlternativeNames()) {
      if ((Integer) san.get(0) == DNS) {
        dnsNames.add((String) san.get(1));
      } else if ((Integer) san.get(0) == IP) {
        addresses.add(InetAddress.getByName((String) san.get(1)));
      }
    }
    assertThat(dnsNames).containsExactly("localhost", "bench.example.org");
    assertThat(addresses).containsExactly(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("::1"));
  }

  @Test
  void serverCertificateIsA397DayServerAuthCertificateFromTheCa() throws Exception {
    ServerCertificate server = ca.ensureServerCertificate(dir,
        new LinkedHashSet<>(List.of("10.0.0.7", "bench.example.org", "localhost")), RENEW_BEFORE);

    X509Certificate cert = Pem.parseCertificate(server.certificatePem());
    assertThat(server.status()).isEqualTo(ServerCertificate.Status.CREATED);
    assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=bench.example.org");
    assertThat(cert.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
    cert.verify(ca.certificate().getPublicKey());
    assertThat(ca.issued(cert)).isTrue();
    assertThat(cert.getExtendedKeyUsage()).containsExactly(SERVER_AUTH);
    boolean[] keyUsage = cert.getKeyUsage();
    assertThat(keyUsage[0]).as("digitalSignature").isTrue();
    assertThat(keyUsage[2]).as("keyEncipherment").isTrue();
    assertThat(keyUsage[5]).as("keyCertSign").isFalse();
    assertThat(cert.getBasicConstraints()).isEqualTo(-1);
    assertThat(server.notAfter()).isEqualTo(cert.getNotAfter().toInstant());
    assertThat(Duration.between(Instant.now(), server.notAfter()).toDays()).isEqualTo(396L);
  }

  @Test
  void serverCertificateFilesHoldTheReturnedMatchingPair() throws Exception {
    ServerCertificate server = ca.ensureServerCertificate(dir, Set.of("localhost"), RENEW_BEFORE);

    assertThat(server.certFile()).isEqualTo(dir.resolve("server.pem"));
    assertThat(server.keyFile()).isEqualTo(dir.resolve("server-key.pem"));
    assertThat(Files.readString(server.certFile())).isEqualTo(server.certificatePem());
    assertThat(Files.readString(server.keyFile())).isEqualTo(server.privateKeyPem());
    assertThat(server.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----");
    PrivateKey key = Pem.parsePrivateKey(server.privateKeyPem());
    assertThat(Keys.matches(key, Pem.parseCertificate(server.certificatePem()).getPublicKey())).isTrue();
    assertThat(server.toString()).doesNotContain("PRIVATE KEY");
  }

  @Test
  void serverCertificateIsReusedWhenValid() throws Exception {
    ServerCertificate first = ca.ensureServerCertificate(dir, Set.of("localhost", "127.0.0.1"), RENEW_BEFORE);
    String onDisk = Files.readString(dir.resolve("server.pem"));

    ServerCertificate second = ca.ensureServerCertificate(dir, Set.of("127.0.0.1"), RENEW_BEFORE);

    assertThat(first.status()).isEqualTo(ServerCertificate.Status.CREATED);
    assertThat(second.status()).isEqualTo(ServerCertificate.Status.REUSED);
    assertThat(second.certificatePem()).isEqualTo(first.certificatePem());
    assertThat(second.privateKeyPem()).isEqualTo(first.privateKeyPem());
    assertThat(second.notAfter()).isEqualTo(first.notAfter());
    assertThat(Files.readString(dir.resolve("server.pem"))).isEqualTo(onDisk);
  }

  @Test
  void serverCertificateIsRenewedWhenNearExpiry() {
    ServerCertificate first = ca.ensureServerCertificate(dir, Set.of("localhost"), RENEW_BEFORE);

    ServerCertificate renewed = ca.ensureServerCertificate(dir, Set.of("localhost"), Duration.ofDays(400));
    ServerCertificate afterwards = ca.ensureServerCertificate(dir, Set.of("localhost"), RENEW_BEFORE);

    assertThat(renewed.status()).isEqualTo(ServerCertificate.Status.RENEWED);
    assertThat(serial(renewed)).isNotEqualTo(serial(first));
    assertThat(renewed.privateKeyPem()).isNotEqualTo(first.privateKeyPem());
    assertThat(afterwards.status()).isEqualTo(ServerCertificate.Status.REUSED);
    assertThat(serial(afterwards)).isEqualTo(serial(renewed));
  }

  @Test
  void serverCertificateIsRenewedWhenARequestedNameIsMissing() throws Exception {
    ServerCertificate first = ca.ensureServerCertificate(dir, Set.of("localhost"), RENEW_BEFORE);

    ServerCertificate second = ca.ensureServerCertificate(dir, Set.of("localhost", "::1"), RENEW_BEFORE);

    assertThat(second.status()).isEqualTo(ServerCertificate.Status.RENEWED);
    assertThat(serial(second)).isNotEqualTo(serial(first));
    assertThat(Pem.parseCertificate(second.certificatePem()).getSubjectAlternativeNames())
        .anySatisfy(san -> assertThat(san.get(0)).isEqualTo(IP));
  }

  @Test
  void serverCertificateIsRenewedWhenSignedByAnotherCa() {
    CertificateAuthority other = CertificateAuthority.loadOrCreate(dir.resolve("other"));
    other.ensureServerCertificate(dir, Set.of("localhost"), RENEW_BEFORE);

    ServerCertificate server = ca.ensureServerCertificate(dir, Set.of("localhost"), RENEW_BEFORE);

    assertThat(server.status()).isEqualTo(ServerCertificate.Status.RENEWED);
    assertThat(ca.issued(Pem.parseCertificate(server.certificatePem()))).isTrue();
  }

  @Test
  void serverCertificateIsRenewedWhenItsKeyFileIsDamaged() throws Exception {
    ca.ensureServerCertificate(dir, Set.of("localhost"), RENEW_BEFORE);
    Files.writeString(dir.resolve("server-key.pem"), "not a key");

    ServerCertificate server = ca.ensureServerCertificate(dir, Set.of("localhost"), RENEW_BEFORE);

    assertThat(server.status()).isEqualTo(ServerCertificate.Status.RENEWED);
    assertThat(Pem.readPrivateKey(dir.resolve("server-key.pem"))).isNotNull();
  }

  @Test
  void rejectsNamesThatAreNeitherDnsNamesNorAddresses() {
    assertThatThrownBy(() -> ca.ensureServerCertificate(dir, Set.of("bad name"), RENEW_BEFORE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'bad name'");
    assertThatThrownBy(() -> ca.ensureServerCertificate(dir, Set.of(), RENEW_BEFORE))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(dir.resolve("server.pem")).doesNotExist();
  }

  @Test
  void ipLiteralsAreFourDecimalOctetsOrIpv6WithoutAZone() {
    assertThat(List.of("127.0.0.1", "10.1.2.3", "255.255.255.255", "::1", "fe80::1", "2001:db8::8a2e:370:7334",
        "::ffff:10.0.0.1", "::")).allMatch(SubjectAltNames::isIpLiteral);
    assertThat(List.of("256.1.1.1", "1.2.3", "1.2.3.4.5", "localhost", "cafe", "bench.example.org", "fe80::1%eth0",
        ":::", "1::2::3", "g::1", ".1::", "")).noneMatch(SubjectAltNames::isIpLiteral);
  }

  @Test
  void defaultSansStartWithLoopbackNamesAndEndWithExtras() {
    Set<String> sans = ServerCertificate.defaultSans(List.of("bench.example.org", " ", "10.1.2.3"));

    assertThat(sans).startsWith("localhost", "127.0.0.1", "::1");
    assertThat(List.copyOf(sans).subList(sans.size() - 2, sans.size()))
        .containsExactly("bench.example.org", "10.1.2.3");
    assertThat(sans).doesNotContain(" ");
    assertThat(sans.size()).isBetween(5, 6);
  }

  private static Object serial(ServerCertificate server) {
    return Pem.parseCertificate(server.certificatePem()).getSerialNumber();
  }
}
