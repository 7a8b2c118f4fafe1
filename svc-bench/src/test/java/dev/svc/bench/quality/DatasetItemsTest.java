package dev.svc.bench.quality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The items of the HellaSwag and TruthfulQA files: read whole, or refused with where and why. */
class DatasetItemsTest {

  @TempDir
  Path dir;

  @Test
  void readsAHellaSwagLineWhoseLabelIsANumberOrDigits() {
    JsonObject line = new JsonObject("{\"ind\":4,\"ctx\":\"A man\",\"endings\":[\"a\",\"b\",\"c\",\"d\"],\"label\":2}");
    HellaSwag.Item item = new HellaSwag.Item("A man", List.of("a", "b", "c", "d"), 2);
    assertThat(HellaSwag.Item.parse(line)).isEqualTo(item);
    assertThat(HellaSwag.Item.parse(line.put("label", "2"))).isEqualTo(item);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"endings\":[\"a\",\"b\",\"c\",\"d\"],\"label\":0}                | Field 'ctx' is required",
      "{\"ctx\":1,\"endings\":[\"a\",\"b\",\"c\",\"d\"],\"label\":0}      | Field 'ctx' must be a string",
      "{\"ctx\":\"x\",\"endings\":[\"a\",\"b\",\"c\"],\"label\":0}        | needs four 'endings' and a 'label' 0..3",
      "{\"ctx\":\"x\",\"endings\":[\"a\",\"b\",\"c\",\"d\"]}              | needs four 'endings' and a 'label' 0..3",
      "{\"ctx\":\"x\",\"endings\":\"abcd\",\"label\":0}                   | Field 'endings' must be an array",
      "{\"ctx\":\"x\",\"endings\":[\"a\",\"b\",\"c\",4],\"label\":0}      | Field 'endings' must be a list of strings",
      "{\"ctx\":\"x\",\"endings\":[\"a\",\"b\",\"c\",\"d\"],\"label\":4}  | Field 'label' must be between 0 and 3",
      "{\"ctx\":\"x\",\"endings\":[\"a\",\"b\",\"c\",\"d\"],\"label\":\"B\"} | Field 'label' must be an integer",
  })
  void refusesABadHellaSwagLine(String line, String sentence) {
    assertThatThrownBy(() -> HellaSwag.Item.parse(new JsonObject(line))).isInstanceOf(BadMessage.class).hasMessage(sentence);
  }

  @Test
  void aBadHellaSwagLineFailsTheLoadSayingWhere() throws IOException {
    Path file = Files.createDirectories(dir.resolve("hellaswag")).resolve("hellaswag_val.jsonl");
    Files.writeString(file, "{\"ctx\":\"x\",\"endings\":[\"a\",\"b\",\"c\",\"d\"],\"label\":1}\n{\"ctx\":\"y\",\"endings\":[]}\n");
    assertThatThrownBy(() -> new HellaSwag().load(dir, 0)).isInstanceOf(IOException.class)
        .hasMessage(file + " line 2: needs four 'endings' and a 'label' 0..3");
  }

  @Test
  void readsATruthfulQaItemsFirstChoicesAndItsTrueOne() {
    JsonObject targets = new JsonObject();
    for (int c = 0; c < 12; c++) {
      targets.put("choice " + c, c == 9 ? 1 : 0);
    }
    TruthfulQa.Item item = TruthfulQa.Item.parse(new JsonObject().put("question", "Q?").put("mc1_targets", targets)
        .put("mc2_targets", new JsonObject()));
    assertThat(item.question()).isEqualTo("Q?");
    assertThat(item.choices()).hasSize(10).startsWith("choice 0").endsWith("choice 9");
    assertThat(item.answer()).isEqualTo(9);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"mc1_targets\":{\"a\":1}}                         | needs 'question' and 'mc1_targets'",
      "{\"question\":\"q\"}                                | needs 'question' and 'mc1_targets'",
      "{\"question\":\"q\",\"mc1_targets\":{}}             | needs 'question' and 'mc1_targets'",
      "{\"question\":[],\"mc1_targets\":{\"a\":1}}         | Field 'question' must be a string",
      "{\"question\":\"q\",\"mc1_targets\":[\"a\"]}        | Field 'mc1_targets' must be an object",
      "{\"question\":\"q\",\"mc1_targets\":{\"a\":0,\"b\":0}} | has no true answer among its first 10",
  })
  void refusesABadTruthfulQaItem(String item, String sentence) {
    assertThatThrownBy(() -> TruthfulQa.Item.parse(new JsonObject(item))).isInstanceOf(BadMessage.class)
        .hasMessage(sentence);
  }

  @Test
  void aBadTruthfulQaItemFailsTheLoadSayingWhere() throws IOException {
    Path file = Files.createDirectories(dir.resolve("truthfulqa")).resolve("mc_task.json");
    Files.writeString(file, "[{\"question\":\"q\",\"mc1_targets\":{\"a\":1}}, 7, {}]");
    assertThatThrownBy(() -> new TruthfulQa().load(dir, 0)).isInstanceOf(IOException.class)
        .hasMessage(file + " item 2: must be an object");
    Files.writeString(file, "[{\"question\":\"q\",\"mc1_targets\":{\"a\":1}}, {\"question\":\"r\"}]");
    assertThatThrownBy(() -> new TruthfulQa().load(dir, 0)).isInstanceOf(IOException.class)
        .hasMessage(file + " item 2: needs 'question' and 'mc1_targets'");
  }
}
