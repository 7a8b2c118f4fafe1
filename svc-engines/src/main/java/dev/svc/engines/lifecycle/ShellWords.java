package dev.svc.engines.lifecycle;

import java.util.List;

/** A command line shown to people the way a shell would take it: words quoted only where needed. */
public final class ShellWords {

  private ShellWords() {}

  public static String join(List<String> words) {
    return String.join(" ", words.stream().map(ShellWords::quote).toList());
  }

  private static String quote(String word) {
    if (!word.isEmpty() && word.chars().allMatch(c -> Character.isLetterOrDigit(c) || "-_./:=,@+*%".indexOf(c) >= 0)) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
