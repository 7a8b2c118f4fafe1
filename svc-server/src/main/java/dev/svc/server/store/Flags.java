package dev.svc.server.store;

/** Booleans stored as INTEGER 0/1 (SQLite and PostgreSQL alike), read back from a row's JSON. */
public final class Flags {

  private Flags() {
  }

  public static boolean isTrue(Object value) {
    return value instanceof Number ? ((Number) value).intValue() != 0 : Boolean.TRUE.equals(value);
  }
}
