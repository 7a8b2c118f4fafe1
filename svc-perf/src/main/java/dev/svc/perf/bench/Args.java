package dev.svc.perf.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** The {@code --name value} options of a benchmark's command line; an unknown name is an error. */
final class Args {

  private final Map<String, String> values = new HashMap<>();

  Args(String[] args, Set<String> known) {
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (!name.startsWith("--") || !known.contains(name.substring(2))) {
        throw new IllegalArgumentException("unknown option " + name + "; options: --" + String.join(", --", known));
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(name + " needs a value");
      }
      values.put(name.substring(2), args[++i]);
    }
  }

  int integer(String name, int fallback) {
    String value = values.get(name);
    if (value == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be an integer, not '" + value + "'");
    }
  }

  String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }
}
