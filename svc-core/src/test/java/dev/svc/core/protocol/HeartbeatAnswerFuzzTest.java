package dev.svc.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.svc.core.domain.AgentSettings;
import io.vertx.core.buffer.Buffer;

/**
 * Hostile heartbeat answers, as the agent reads them before applying anything: any bytes from the
 * server either give an answer whose every part is usable (an agent id that is safe in a request path, settings
 * whose heartbeat interval stays in the server's range, commands with ids, strings and an object
 * payload) or are refused with {@link HeartbeatAnswer.MalformedException}; nothing else escapes.
 * Writing a parsed answer with {@code toJson} and parsing it again gives the same answer.
 * Regression mode runs the inputs under {@code HeartbeatAnswerFuzzTestInputs/}.
 */
class HeartbeatAnswerFuzzTest {

  @FuzzTest
  void answer(byte[] input) {
    HeartbeatAnswer answer;
    try {
      answer = HeartbeatAnswer.parse(Buffer.buffer(input));
    } catch (HeartbeatAnswer.MalformedException refused) {
      assertThat(refused).hasMessageStartingWith("The server's heartbeat answer is malformed: ");
      return;
    }
    answer.agentId().ifPresent(id -> assertThat(id).as("agent id").matches("[A-Za-z0-9_-]{1,64}"));
    answer.settings().ifPresent(settings -> assertThat(AgentSettings.heartbeatIntervalS(HeartbeatAnswer.flat(settings)))
        .isBetween(AgentSettings.MIN_HEARTBEAT_S, AgentSettings.MAX_HEARTBEAT_S));
    for (HeartbeatAnswer.Command command : answer.commands()) {
      assertThat(command.commandId()).isNotBlank().hasSizeLessThanOrEqualTo(HeartbeatAnswer.MAX_COMMAND_ID);
      assertThat(command.payload()).isNotNull();
      // what the engine is sent encodes (the event bus copies it)
      assertThat(command.payload().encode()).isNotNull();
    }
    // what the server writes is what the agent reads: one toJson, one parse
    assertThat(HeartbeatAnswer.from(answer.toJson())).isEqualTo(answer);
  }
}
