package dev.svc.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextRuleTest {

  @Test
  void oneLineTextRefusesControlEscapeBidiAndFormatCharacters() {
    for (String bad : new String[] {"a\nb", "a\rb", "a\tb", "a\u0000b", "a\u001b[2Jb", "a\u007fb", "a\u0085b",
        "a\u202Ab", "a\u202Bb", "a\u202Cb", "a\u202Db", "a\u202Eb", "a\u2066b", "a\u2067b", "a\u2068b", "a\u2069b",
        "a\u200Eb", "a\u200Fb", "a\u061Cb", "a\u200Bb", "a\uFEFFb", "a\u00ADb", "a\u2028b", "a\u2029b", "a\uD800b",
        "a\u200Db"}) {
      assertThat(TextRule.problem(bad, false)).as("U+%04X", (int) bad.charAt(1)).isNotNull();
    }
    assertThat(TextRule.problem("node-7 — GPU ✓ 日本語 😀", false)).isNull();
    assertThat(TextRule.problem(null, false)).isNull();
  }

  @Test
  void multiLineTextMayBreakLinesAndJoinButNotEscapeOrOverride() {
    assertThat(TextRule.problem("line one\r\n\tline two", true)).isNull();
    assertThat(TextRule.problem("نیم\u200Cفاصله 👩\u200D💻", true)).isNull();
    assertThat(TextRule.problem("a\u001b[31m", true)).contains("escape");
    assertThat(TextRule.problem("a\u202Eb", true)).contains("bidirectional");
  }

  @Test
  void theProblemNamesTheCharacterAndWhereItIs() {
    assertThat(TextRule.problem("ab\u001bc", false)).isEqualTo("an escape character (U+001B) at character 3");
    assertThat(TextRule.problem("😀\u202E", false)).isEqualTo("a bidirectional formatting character (U+202E) at character 2");
    assertThat(TextRule.fieldProblem("name", "x\ny", false)).startsWith("Field 'name' must not contain");
  }
}
