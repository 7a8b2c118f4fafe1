package dev.svc.core.tls;

import dev.svc.core.home.PrivateFiles;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/** PEM is how certificates and keys travel between disk, server and agents; this reads and writes what svc uses. */
public final class Pem {

  static final String CERTIFICATE = "CERTIFICATE";
  static final String PRIVATE_KEY = "PRIVATE KEY";
  static final String CERTIFICATE_REQUEST = "CERTIFICATE REQUEST";

  private Pem() {
  }

  public static String encodeCertificate(X509Certificate certificate) {
    try {
      return encode(CERTIFICATE, certificate.getEncoded());
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException("The certificate cannot be DER-encoded.", e);
    }
  }

  /** PKCS#8 ({@code PRIVATE KEY}), the form every TLS stack reads. */
  public static String encodePrivateKey(PrivateKey key) {
    if (!"PKCS#8".equals(key.getFormat())) {
      throw new IllegalArgumentException("The private key is not PKCS#8-encodable (format " + key.getFormat() + ").");
    }
    return encode(PRIVATE_KEY, key.getEncoded());
  }

  /** The first certificate in the text; anything before it (comments, other blocks) is skipped. */
  public static X509Certificate parseCertificate(String pem) {
    X509CertificateHolder holder = (X509CertificateHolder) first(pem, "certificate", X509CertificateHolder.class);
    try {
      return new JcaX509CertificateConverter().getCertificate(holder);
    } catch (CertificateException e) {
      throw new IllegalArgumentException("The PEM certificate is not a valid X.509 certificate.", e);
    }
  }

  /** Accepts {@code PRIVATE KEY} (PKCS#8), {@code EC PRIVATE KEY} and {@code RSA PRIVATE KEY}, unencrypted. */
  public static PrivateKey parsePrivateKey(String pem) {
    Object key = first(pem, "private key", PrivateKeyInfo.class, PEMKeyPair.class,
        PKCS8EncryptedPrivateKeyInfo.class, PEMEncryptedKeyPair.class);
    if (key instanceof PKCS8EncryptedPrivateKeyInfo || key instanceof PEMEncryptedKeyPair) {
      throw new IllegalArgumentException(
          "The private key is encrypted; svc needs an unencrypted key (openssl pkcs8 -topk8 -nocrypt).");
    }
    try {
      // the private part alone: traditional EC keys often leave out the optional public key
      PrivateKeyInfo info = key instanceof PEMKeyPair pair ? pair.getPrivateKeyInfo() : (PrivateKeyInfo) key;
      return new JcaPEMKeyConverter().getPrivateKey(info);
    } catch (IOException e) {
      throw new IllegalArgumentException("The PEM private key could not be decoded: " + e.getMessage(), e);
    }
  }

  public static X509Certificate readCertificate(Path file) {
    try {
      return parseCertificate(read(file));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  public static PrivateKey readPrivateKey(Path file) {
    try {
      return parsePrivateKey(read(file));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** Replaces the file atomically; the certificate stays world-readable. */
  public static void writeCertificate(Path file, X509Certificate certificate) {
    PrivateFiles.writeReadable(file, encodeCertificate(certificate));
  }

  /** Replaces the file atomically, readable by its owner only where the file system has POSIX permissions. */
  public static void writePrivateKey(Path file, PrivateKey key) {
    PrivateFiles.write(file, encodePrivateKey(key));
  }

  static String encode(String type, byte[] der) {
    StringWriter out = new StringWriter();
    try (PemWriter writer = new PemWriter(out)) {
      writer.writeObject(new PemObject(type, der));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** The first PEM object that is an instance of one of the wanted types. */
  static Object first(String pem, String what, Class<?>... wanted) {
    if (pem == null || pem.isBlank()) {
      throw new IllegalArgumentException("Expected a PEM " + what + " but the text is empty.");
    }
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
        for (Class<?> type : wanted) {
          if (type.isInstance(object)) {
            return object;
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("The PEM " + what + " could not be parsed: " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("The text contains no PEM " + what + ".");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read " + file, e);
    }
  }
}
