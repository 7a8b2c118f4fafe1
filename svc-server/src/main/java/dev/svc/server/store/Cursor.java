package dev.svc.server.store;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * Where a page of a list ended: the sort key (a timestamp) and id of its last row. A list asked for
 * the rows after a cursor seeks to it in its index (keyset pagination), however deep: no offset is
 * walked. On the wire it is opaque, URL-safe Base64 of {@code <key>|<id>}.
 */
public record Cursor(String key, String id) {

  private static final int MAX_TEXT = 200;

  public String encode() {
    return Base64.getUrlEncoder().withoutPadding().encodeToString((key + "|" + id).getBytes(StandardCharsets.UTF_8));
  }

  /** The cursor a client sent back, or empty when it is not one this server gives out. */
  public static Optional<Cursor> decode(String text) {
    if (text == null || text.isEmpty() || text.length() > MAX_TEXT || !text.matches("[A-Za-z0-9_-]+")) {
      return Optional.empty();
    }
    String plain;
    try {
      plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    int bar = plain.lastIndexOf('|');
    if (bar <= 0 || bar == plain.length() - 1) {
      return Optional.empty();
    }
    return Optional.of(new Cursor(plain.substring(0, bar), plain.substring(bar + 1)));
  }
}
