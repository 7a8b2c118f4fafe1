package dev.svc.server.http;

import dev.svc.core.protocol.Fields;
import dev.svc.core.TextRule;
import java.util.List;

/**
 * Text fields people read back (names, hostnames, notes, tags, descriptions), checked by the one
 * rule in {@link TextRule}: no control characters, ANSI escapes, bidi overrides or other format
 * characters; 400 naming the field otherwise. Lengths are checked here too, so one call does both.
 */
public final class TextFields {

  private TextFields() {
  }

  /** A one-line value (a name, a hostname, a tag); null passes through. */
  public static String line(String field, String value, int max) {
    return check(field, value, max, false);
  }

  /** Free text that may span lines (notes, a description); null passes through. */
  public static String text(String field, String value, int max) {
    return check(field, value, max, true);
  }

  /** Each entry of a list of one-line values (tags, capabilities); null passes through. */
  public static List<String> lines(String field, List<String> values, int maxEach) {
    return Body.wire(() -> Fields.lines(field, values, maxEach));
  }

  private static String check(String field, String value, int max, boolean multiLine) {
    return Body.wire(() -> Fields.text(field, value, max, multiLine));
  }

  /** {@code value} when it is at most {@code max} characters (or null); 400 naming the field otherwise. */
  static String limit(String field, String value, int max) {
    return Body.wire(() -> Fields.limit(field, value, max));
  }
}
