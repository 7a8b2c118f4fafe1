package dev.svc.server.http;

import dev.svc.core.Ids;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/** Token hashing and constant-time comparison. */
public final class Tokens {

  private Tokens() {
  }

  public static String prefix(String token) {
    return token.length() <= 8 ? token : token.substring(0, 8);
  }

  /** Constant-time equality of two strings (the length difference still shows, which is acceptable). */
  public static boolean equal(String a, String b) {
    if (a == null || b == null) {
      return false;
    }
    return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  /** Whether {@code token} hashes to {@code storedHash}; compares digests in constant time. */
  public static boolean matchesHash(String token, String storedHash) {
    return token != null && storedHash != null && equal(Ids.sha256Hex(token), storedHash);
  }
}
