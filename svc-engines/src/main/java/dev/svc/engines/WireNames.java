package dev.svc.engines;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/** Looks an enum constant up by its lower-case wire name. */
final class WireNames {

  private WireNames() {}

  static <E> Optional<E> parse(E[] constants, String value, Function<E, String> wireName) {
    if (value == null) {
      return Optional.empty();
    }
    String wanted = value.trim().toLowerCase(Locale.ROOT);
    for (E constant : constants) {
      if (wireName.apply(constant).equals(wanted)) {
        return Optional.of(constant);
      }
    }
    return Optional.empty();
  }
}
