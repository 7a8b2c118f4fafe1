package dev.svc.core;

/**
 * The one rule for text that people read back: names, hostnames, notes, tags, settings. Such text
 * ends up in terminals, logs and the dashboard, where a newline forges a log line, an ANSI escape
 * repaints a terminal and a bidi override shows "exe.txt" for "txt.exe". So it may not contain
 * control characters (Unicode Cc, including ESC and DEL), format characters (Cf: the bidi
 * embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E/U+200F,
 * zero-width spaces, the byte-order mark), line or paragraph separators, or lone surrogates.
 * Multi-line text (notes, descriptions) may also contain newlines and tabs, and the zero-width
 * (non-)joiners U+200C/U+200D that some scripts and emoji need.
 */
public final class TextRule {

  private TextRule() {
  }

  /** Null when {@code value} may be stored; otherwise what is wrong, e.g. "a control character (U+001B) at character 4". */
  public static String problem(String value, boolean multiLine) {
    if (value == null) {
      return null;
    }
    for (int i = 0; i < value.length(); ) {
      int cp = value.codePointAt(i);
      String what = refused(cp, multiLine);
      if (what != null) {
        return String.format("%s (U+%04X) at character %d", what, cp, value.codePointCount(0, i) + 1);
      }
      i += Character.charCount(cp);
    }
    return null;
  }

  /** The sentence for a field whose value breaks the rule, or null when it is fine. */
  public static String fieldProblem(String field, String value, boolean multiLine) {
    String problem = problem(value, multiLine);
    return problem == null ? null : "Field '" + field + "' must not contain control, escape or bidirectional"
        + " formatting characters" + (multiLine ? "" : " (it is one line)") + "; found " + problem;
  }

  private static String refused(int cp, boolean multiLine) {
    switch (Character.getType(cp)) {
      case Character.CONTROL:
        if (multiLine && (cp == '\n' || cp == '\r' || cp == '\t')) {
          return null;
        }
        return cp == 0x1B ? "an escape character" : cp == '\n' || cp == '\r' ? "a line break" : "a control character";
      case Character.FORMAT:
        if (multiLine && (cp == 0x200C || cp == 0x200D)) {
          return null;
        }
        return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F
            || cp == 0x061C ? "a bidirectional formatting character" : "an invisible format character";
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
        return "a line break";
      case Character.SURROGATE:
        return "an unpaired surrogate";
      default:
        return null;
    }
  }
}
