package dev.svc.bench.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import dev.svc.engines.codec.TokenUsage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A whole OpenAI response as the request-rate benchmark reads it: text, usage, and the sentence of a bad one. */
class OpenAiResponseTest {

  @Test
  void readsACompletionsTextAndUsage() {
    JsonObject body = new JsonObject("{\"id\":\"cmpl-1\",\"choices\":[{\"index\":0,\"text\":\" w1 w2\",\"logprobs\":null,"
        + "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}");
    assertThat(OpenAiResponse.parse(body)).isEqualTo(new OpenAiResponse(" w1 w2", new TokenUsage(3, 2)));
  }

  @Test
  void readsAChatMessagesContentAndJoinsChoices() {
    JsonObject body = new JsonObject("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"}},"
        + "{\"message\":{\"content\":null}},{\"text\":\"!\"}]}");
    assertThat(OpenAiResponse.parse(body)).isEqualTo(new OpenAiResponse("Hi!", null));
  }

  @Test
  void generatedTextIsTakenAsWrittenNulIncluded() {
    JsonObject body = new JsonObject().put("choices", new JsonArray()
        .add(new JsonObject().put("text", "a\u0000b")));
    assertThat(OpenAiResponse.parse(body).text()).isEqualTo("a\u0000b");
  }

  @Test
  void anEmptyResponseHasNoTextAndACountNotGivenIsNull() {
    assertThat(OpenAiResponse.parse(new JsonObject())).isEqualTo(new OpenAiResponse("", null));
    assertThat(OpenAiResponse.parse(new JsonObject("{\"usage\":{\"completion_tokens\":4}}")).usage())
        .isEqualTo(new TokenUsage(null, 4));
  }

  @Test
  void theDecoderGivesMinusOneForACountNotGiven() {
    StreamDecoder.Chunk chunk = new OpenAiDecoder().whole(new JsonObject("{\"choices\":[{\"text\":\"a\"}],"
        + "\"usage\":{\"completion_tokens\":1}}"));
    assertThat(chunk).isEqualTo(new StreamDecoder.Chunk("a", -1, 1, -1, true, null, null));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"choices\":{}}                               | Field 'choices' must be an array",
      "{\"choices\":[\"a\"]}                          | Every choice must be an object",
      "{\"choices\":[{\"message\":\"a\"}]}            | Field 'message' must be an object",
      "{\"choices\":[{\"message\":{\"content\":1}}]}  | Field 'content' must be a string",
      "{\"choices\":[{\"text\":[]}]}                  | Field 'text' must be a string",
      "{\"usage\":[]}                                 | Field 'usage' must be an object",
      "{\"usage\":{\"prompt_tokens\":\"some\"}}       | Field 'prompt_tokens' must be an integer",
      "{\"usage\":{\"completion_tokens\":-1}}         | Field 'completion_tokens' must be between 0 and 2147483647",
  })
  void refusesAResponseOfTheWrongShapeWithItsSentence(String body, String sentence) {
    assertThatThrownBy(() -> OpenAiResponse.parse(new JsonObject(body))).isInstanceOf(BadMessage.class).hasMessage(sentence);
  }
}
