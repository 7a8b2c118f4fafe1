package dev.svc.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * Hostile bodies of what agents send the server (registration, heartbeat, log lines, status and
 * result reports), as the server reads them: any JSON object either parses into a message whose
 * {@code toJson} parses back to the same message, or is refused with {@link BadMessage}; nothing
 * else escapes. Regression mode runs the inputs under {@code AgentMessagesFuzzTestInputs/}.
 */
class AgentMessagesFuzzTest {

  @FuzzTest
  void body(byte[] input) {
    JsonObject body;
    try {
      body = new JsonObject(new String(input, StandardCharsets.UTF_8));
    } catch (DecodeException | ClassCastException notAnObject) {
      return; // the HTTP layer answers 400 before any parse
    }
    roundTrip(body, Registration::parse, Registration::toJson);
    roundTrip(body, Heartbeat::parse, Heartbeat::toJson);
    roundTrip(body, LogBatch::parse, LogBatch::toJson);
    roundTrip(body, StatusReport::parse, StatusReport::toJson);
    roundTrip(body, ResultReport::parse, ResultReport::toJson);
    roundTrip(body, Registration.Answer::parse, Registration.Answer::toJson);
  }

  private static <T> void roundTrip(JsonObject body, Function<JsonObject, T> parse, Function<T, JsonObject> toJson) {
    T message;
    try {
      message = parse.apply(body);
    } catch (BadMessage refused) {
      assertThat(refused.getMessage()).isNotBlank();
      return;
    }
    assertThat(parse.apply(toJson.apply(message))).isEqualTo(message);
  }
}
