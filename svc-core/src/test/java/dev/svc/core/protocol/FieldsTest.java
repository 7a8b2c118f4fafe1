package dev.svc.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The typed reads refuse a value of the wrong kind with the field's name, and default only when it is absent; an error body gives its sentence. */
class FieldsTest {

  @Test
  void longsAreWholeAndWithinRange() {
    JsonObject json = new JsonObject().put("a", 5_000_000_000L).put("b", 7.0).put("c", " 12 ").put("d", 1.5)
        .put("e", -1).put("f", "1e3");
    assertThat(Fields.optLong(json, "a", null, 0, Long.MAX_VALUE)).isEqualTo(5_000_000_000L);
    assertThat(Fields.optLong(json, "b", null, 0, 10)).isEqualTo(7L);
    assertThat(Fields.optLong(json, "c", null, 0, 100)).isEqualTo(12L);
    assertThat(Fields.optLong(json, "missing", 3L, 0, 10)).isEqualTo(3L);
    assertThatThrownBy(() -> Fields.optLong(json, "d", null, 0, 10)).isInstanceOf(BadMessage.class)
        .hasMessage("Field 'd' must be an integer");
    assertThatThrownBy(() -> Fields.optLong(json, "e", null, 0, 10)).hasMessage("Field 'e' must be between 0 and 10");
    assertThatThrownBy(() -> Fields.optLong(json, "f", null, 0, 10_000)).hasMessage("Field 'f' must be an integer");
    assertThatThrownBy(() -> Fields.optLong(new JsonObject().put("g", 1e30), "g", null, 0, Long.MAX_VALUE))
        .hasMessage("Field 'g' must be an integer");
  }

  @Test
  void booleansAreBooleansOrTheirWords() {
    JsonObject json = new JsonObject().put("yes", true).put("text", "false").put("word", "yes").put("one", 1);
    assertThat(Fields.optBoolean(json, "yes", false)).isTrue();
    assertThat(Fields.optBoolean(json, "text", true)).isFalse();
    assertThat(Fields.optBoolean(json, "missing", true)).isTrue();
    assertThat(Fields.optBoolean(json, "missing", false)).isFalse();
    assertThatThrownBy(() -> Fields.optBoolean(json, "word", false)).hasMessage("Field 'word' must be true or false");
    assertThatThrownBy(() -> Fields.optBoolean(json, "one", false)).hasMessage("Field 'one' must be true or false");
  }

  @Test
  void objectsAreObjectsOnly() {
    JsonObject inner = new JsonObject().put("k", 1);
    JsonObject json = new JsonObject().put("o", inner).put("list", new JsonArray()).put("s", "{}");
    assertThat(Fields.optObject(json, "o")).isEqualTo(inner);
    assertThat(Fields.optObject(json, "missing")).isNull();
    assertThatThrownBy(() -> Fields.optObject(json, "list")).hasMessage("Field 'list' must be an object");
    assertThatThrownBy(() -> Fields.optObject(json, "s")).hasMessage("Field 's' must be an object");
  }

  @Test
  void anErrorBodyGivesItsSentence() {
    assertThat(ErrorBody.sentence(new ErrorBody("Unknown agent").toJson().encode())).contains("Unknown agent");
    assertThat(ErrorBody.sentence("<html>Bad gateway</html>")).isEmpty();
    assertThat(ErrorBody.sentence("{\"error\": 42}")).isEmpty();
    assertThat(ErrorBody.sentence("{\"status\": \"ok\"}")).isEmpty();
    assertThat(ErrorBody.sentence("")).isEmpty();
    assertThat(ErrorBody.sentence(null)).isEmpty();
  }
}
