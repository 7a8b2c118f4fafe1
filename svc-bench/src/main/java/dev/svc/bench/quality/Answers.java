package dev.svc.bench.quality;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the answer out of an engine's free text: a choice letter, or the final number. */
final class Answers {

  private static final Pattern NUMBER = Pattern.compile("-?\\d[\\d,]*(?:\\.\\d+)?");
  private static final String LETTERS = "ABCDEFGHIJ";

  private Answers() {
  }

  /** Letters of the first {@code n} choices, "A".."D" for four. */
  static String letter(int index) {
    return String.valueOf(LETTERS.charAt(index));
  }

  /**
   * The first choice letter the text gives: a standalone capital letter among the first
   * {@code choices} ("B", "(B)", "B.", "Answer: B"), ignoring the article "A" when it starts a word group.
   */
  static Optional<String> choice(String text, int choices) {
    String allowed = LETTERS.substring(0, choices);
    Matcher m = Pattern.compile("(?<![A-Za-z])([" + allowed + "])(?![A-Za-z])").matcher(text.trim());
    while (m.find()) {
      String letter = m.group(1);
      boolean article = letter.equals("A") && text.length() > m.end() + 1 && text.charAt(m.end()) == ' '
          && Character.isLetter(text.charAt(m.end() + 1));
      if (!article) {
        return Optional.of(letter);
      }
    }
    return Optional.empty();
  }

  /** The last number in the text, without thousands separators ("1,234.0" → "1234"). */
  static Optional<String> lastNumber(String text) {
    Matcher m = NUMBER.matcher(text);
    String last = null;
    while (m.find()) {
      last = m.group();
    }
    return Optional.ofNullable(last).map(Answers::normalNumber);
  }

  static String normalNumber(String number) {
    String plain = number.replace(",", "");
    if (plain.contains(".")) {
      plain = plain.replaceAll("0+$", "").replaceAll("\\.$", "");
    }
    return plain.toLowerCase(Locale.ROOT);
  }
}
