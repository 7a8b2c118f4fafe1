package dev.svc.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** Random identifiers and tokens in the formats of the wire protocol. */
public final class Ids {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();
  private static final Pattern ID = Pattern.compile("[0-9a-f]{16}");

  private Ids() {
  }

  /** 16 lowercase hex characters: agents, tests, commands, campaigns, results. */
  public static String newId() {
    return randomHex(8);
  }

  /** 64 lowercase hex characters (32 random bytes): per-agent tokens. */
  public static String newToken() {
    return randomHex(32);
  }

  public static boolean isId(String s) {
    return s != null && ID.matcher(s).matches();
  }

  public static String randomHex(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return HEX.formatHex(b);
  }

  /** The SHA-256 of a text's UTF-8 bytes, in lower-case hex: how tokens are stored, and derived ids. */
  public static String sha256Hex(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
