package dev.svc.server.campaigns;

/** Reads a stored boolean flag (an integer column in SQL, a boolean in JSON). */
final class Flags {

  private Flags() {
  }

  static boolean isTrue(Object value) {
    return value instanceof Number ? ((Number) value).intValue() != 0 : Boolean.TRUE.equals(value);
  }
}
