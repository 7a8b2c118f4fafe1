package dev.svc.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** A cancel_test payload reads back as written, and a test id that is no short line is refused with a sentence. */
class CancelTestTest {

  @Test
  void thePayloadTheServerWritesReadsBack() {
    HeartbeatAnswer.Command command = HeartbeatAnswer.Command.cancelTest("c0ffef", "t0");
    assertThat(command.payload().encode()).isEqualTo("{\"test_id\":\"t0\"}");
    assertThat(CancelTest.from(command.payload())).isEqualTo(new CancelTest("t0"));
    assertThat(CancelTest.from(new CancelTest("a1b2").toJson()).testId()).isEqualTo("a1b2");
  }

  @Test
  void aPayloadWithoutTestIdNamesNone() {
    assertThat(CancelTest.from(new JsonObject()).testId()).isEmpty();
    assertThat(CancelTest.from(null).testId()).isEmpty();
  }

  @Test
  void aBadTestIdIsRefusedWithItsSentence() {
    assertThatThrownBy(() -> CancelTest.from(new JsonObject().put("test_id", 7)))
        .isInstanceOf(HeartbeatAnswer.MalformedException.class)
        .hasMessage("The server's heartbeat answer is malformed: cancel_test payload: Field 'test_id' must be a string");
    assertThatThrownBy(() -> CancelTest.from(new JsonObject().put("test_id", "x".repeat(129))))
        .hasMessage("The server's heartbeat answer is malformed: cancel_test payload: Field 'test_id' must be at most"
            + " 128 characters");
    assertThatThrownBy(() -> CancelTest.from(new JsonObject().put("test_id", "t0\nforged")))
        .hasMessageStartingWith("The server's heartbeat answer is malformed: cancel_test payload: Field 'test_id' must"
            + " not contain control");
  }
}
