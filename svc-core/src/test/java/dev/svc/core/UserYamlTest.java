package dev.svc.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A user's YAML loads into plain values, or is refused with a problem in words, never a library exception. */
class UserYamlTest {

  @Test
  void aDocumentLoadsIntoMapsListsAndScalars() throws UserYaml.Invalid {
    assertThat(UserYaml.load("a: 1\nb: [x, y]\nc: {d: true}\n"))
        .isEqualTo(Map.of("a", 1, "b", List.of("x", "y"), "c", Map.of("d", true)));
    assertThat(UserYaml.load("")).isNull();
    assertThat(UserYaml.load("# only a comment\n")).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "unclosed list         | 'a: [1\\n'                  | not well-formed YAML",
        "duplicate key         | 'a: 1\\na: 2\\n'             | not well-formed YAML",
        "alias of a list       | 'a: &x [1]\\nb: *x\\n'       | not well-formed YAML",
        "base-60 part too big  | 'a: 4444444444444444444444:20\\n'| a number in it is out of range",
        "int tag without digits| 'a: !!int 0b\\n'             | a number in it is out of range",
        "binary that is no b64 | 'a: !!binary ab!c\\n'        | a value in it cannot be decoded",
        "set tag on a list     | 'a: !!set [1]\\n'            | a value in it does not fit its YAML tag",
      })
  void aMalformedDocumentIsRefusedInWords(String what, String text, String problem) {
    assertThatThrownBy(() -> UserYaml.load(text.replace("\\n", "\n")))
        .as(what)
        .isExactlyInstanceOf(UserYaml.Invalid.class)
        .hasMessageContaining(problem);
  }
}
