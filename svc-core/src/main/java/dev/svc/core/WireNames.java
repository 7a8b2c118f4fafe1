package dev.svc.core;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/** Looks an enum constant up by its lower-case wire name. */
public final class WireNames {

  private WireNames() {}

  /** Lenient: surrounding spaces and case are ignored (configuration files). */
  public static <E> Optional<E> parse(E[] constants, String value, Function<E, String> wireName) {
    return value == null ? Optional.empty() : parseExact(constants, value.trim().toLowerCase(Locale.ROOT), wireName);
  }

  /** Exact: the protocol's states must be spelled as the protocol spells them. */
  public static <E> Optional<E> parseExact(E[] constants, String value, Function<E, String> wireName) {
    if (value == null) {
      return Optional.empty();
    }
    for (E constant : constants) {
      if (wireName.apply(constant).equals(value)) {
        return Optional.of(constant);
      }
    }
    return Optional.empty();
  }
}
