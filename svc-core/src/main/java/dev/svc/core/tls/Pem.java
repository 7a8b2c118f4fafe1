package dev.svc.core.tls;

import dev.svc.core.home.PrivateFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/** PEM is how certificates and keys travel between disk, server and agents; this reads and writes what svc uses. */
public final class Pem {

  static final String CERTIFICATE = "CERTIFICATE";
  static final String PRIVATE_KEY = "PRIVATE KEY";
  static final String CERTIFICATE_REQUEST = "CERTIFICATE REQUEST";

  private static final String BEGIN = "-----BEGIN ";
  private static final String DASHES = "-----";
  /** PEM's body: base64 in lines of 64 characters. */
  private static final Base64.Encoder LINES = Base64.getMimeEncoder(64, new byte[] {'\n'});

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
    // the JDK reads the plain form svc writes; Bouncy Castle the rest, and says what is wrong
    byte[] der = firstBlock(pem, CERTIFICATE);
    if (der != null) {
      try {
        return certificate(der);
      } catch (CertificateException | RuntimeException e) {
        // read again below, for its error
      }
    }
    X509CertificateHolder holder = (X509CertificateHolder) first(pem, "certificate", X509CertificateHolder.class);
    try {
      return new JcaX509CertificateConverter().getCertificate(holder);
    } catch (CertificateException e) {
      throw new IllegalArgumentException("The PEM certificate is not a valid X.509 certificate.", e);
    }
  }

  /** Every certificate in the text, in order (a chain); text around the blocks is skipped. */
  public static List<X509Certificate> parseCertificates(String pem) {
    List<X509Certificate> certificates = new ArrayList<>();
    String begin = BEGIN + CERTIFICATE + DASHES;
    for (int at = pem == null ? -1 : pem.indexOf(begin); at >= 0; at = pem.indexOf(begin, at + 1)) {
      byte[] der = body(pem, at, CERTIFICATE);
      try {
        if (der == null) {
          throw new CertificateException("its PEM block is not base64 between BEGIN and END lines");
        }
        certificates.add(certificate(der));
      } catch (CertificateException e) {
        throw new IllegalArgumentException("Certificate " + (certificates.size() + 1) + " of the PEM text cannot be read: "
            + e.getMessage(), e);
      }
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException("The text contains no PEM certificate.");
    }
    return certificates;
  }

  private static X509Certificate certificate(byte[] der) throws CertificateException {
    return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
  }

  /** Accepts {@code PRIVATE KEY} (PKCS#8), {@code EC PRIVATE KEY} and {@code RSA PRIVATE KEY}, unencrypted. */
  public static PrivateKey parsePrivateKey(String pem) {
    PrivateKey plain = plainPkcs8(pem);
    if (plain != null) {
      return plain;
    }
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
    return BEGIN + type + DASHES + "\n" + LINES.encodeToString(der) + "\n-----END " + type + DASHES + "\n";
  }

  /**
   * The key when the text's first private key is an unencrypted PKCS#8 block, the form svc writes,
   * read by the JDK alone (Bouncy Castle's loading took most of a second of a server's start); null
   * for any other form, or one the JDK cannot read.
   */
  private static PrivateKey plainPkcs8(String pem) {
    if (pem == null) {
      return null;
    }
    for (int begin = pem.indexOf(BEGIN); begin >= 0; begin = pem.indexOf(BEGIN, begin + 1)) {
      int typeEnd = pem.indexOf(DASHES, begin + BEGIN.length());
      String type = typeEnd < 0 ? "" : pem.substring(begin + BEGIN.length(), typeEnd);
      if (!type.endsWith(PRIVATE_KEY)) {
        continue;
      }
      byte[] der = type.equals(PRIVATE_KEY) ? body(pem, begin, type) : null;
      if (der == null) {
        return null;
      }
      for (String algorithm : new String[] {"EC", "RSA"}) {
        try {
          return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | RuntimeException e) {
          // not a key of this algorithm
        }
      }
      return null;
    }
    return null;
  }

  /** The decoded body of the first block of this type; null when there is none or it has headers. */
  private static byte[] firstBlock(String pem, String type) {
    int begin = pem == null ? -1 : pem.indexOf(BEGIN + type + DASHES);
    return begin < 0 ? null : body(pem, begin, type);
  }

  private static byte[] body(String pem, int begin, String type) {
    int start = begin + BEGIN.length() + type.length() + DASHES.length();
    int end = pem.indexOf("-----END " + type + DASHES, start);
    if (end < 0) {
      return null;
    }
    String body = pem.substring(start, end);
    if (body.indexOf(':') >= 0) {
      return null; // headers (Proc-Type, DEK-Info): an encrypted key, for Bouncy Castle to report
    }
    try {
      return Base64.getMimeDecoder().decode(body.strip());
    } catch (IllegalArgumentException e) {
      return null;
    }
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
