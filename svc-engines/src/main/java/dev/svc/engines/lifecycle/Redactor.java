package dev.svc.engines.lifecycle;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Hides a container's environment values from every line that leaves the lifecycle: the
 * {@code docker run} line shows {@code -e KEY=***}, and any value of {@value #MIN_SECRET_LENGTH}
 * or more characters is replaced by {@value #MASK} wherever it appears (engine output, error
 * messages). Shorter values would garble ordinary text and are never credentials.
 */
public final class Redactor {

  public static final String MASK = "***";
  static final int MIN_SECRET_LENGTH = 4;

  private final List<String> secrets;

  private Redactor(List<String> secrets) {
    this.secrets = secrets;
  }

  /** A redactor for these environment values. */
  public static Redactor of(Map<String, String> environment) {
    return new Redactor(
        environment.values().stream()
            .filter(Objects::nonNull)
            .filter(value -> value.length() >= MIN_SECRET_LENGTH)
            .distinct()
            // the longest first, so that a value containing another is hidden whole
            .sorted(Comparator.comparingInt(String::length).reversed())
            .toList());
  }

  /** The text with every secret value masked. */
  public String apply(String text) {
    if (text == null) {
      return null;
    }
    String result = text;
    for (String secret : secrets) {
      result = result.replace(secret, MASK);
    }
    return result;
  }

  /** A sink that masks every line before handing it on. */
  public LogSink wrap(LogSink sink) {
    return line -> sink.log(apply(line));
  }
}
