package dev.svc.engines.codec;

/** Reads the data of one server-sent-events line; other fields and comments carry nothing. */
final class SseLine {

  private SseLine() {}

  /** The value of a {@code data:} line (one optional space after the colon removed), else null. */
  static String data(String line) {
    if (line == null || !line.startsWith("data:")) {
      return null;
    }
    String value = line.substring("data:".length());
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    if (value.endsWith("\r")) {
      value = value.substring(0, value.length() - 1);
    }
    return value;
  }
}
