package dev.svc.bench.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The emulator's reading of a completion request: what it takes, and the sentence of each refusal. */
class CompletionRequestTest {

  @Test
  void readsACompletionRequest() {
    JsonObject body = new JsonObject().put("model", "emulator").put("prompt", "Hello there").put("max_tokens", 16)
        .put("stream", true).put("stream_options", new JsonObject().put("include_usage", true)).put("temperature", 0);
    assertThat(CompletionRequest.parse(body, false)).isEqualTo(new CompletionRequest(false, "Hello there", true, true, 16));
  }

  @Test
  void joinsAListOfPromptsAndChatMessagesByNewlines() {
    JsonObject completion = new JsonObject().put("prompt", new JsonArray().add("a").add("b"));
    assertThat(CompletionRequest.parse(completion, false).prompt()).isEqualTo("a\nb");
    JsonObject chat = new JsonObject().put("messages", new JsonArray()
        .add(new JsonObject().put("role", "system").put("content", "Be brief."))
        .add(new JsonObject().put("role", "user").put("content", "Hi")));
    assertThat(CompletionRequest.parse(chat, true)).isEqualTo(new CompletionRequest(true, "Be brief.\nHi", false, false, null));
  }

  @Test
  void takesMaxCompletionTokensWhenMaxTokensIsAbsent() {
    JsonObject body = new JsonObject().put("prompt", "x").put("max_completion_tokens", 5.0);
    assertThat(CompletionRequest.parse(body, false).maxTokens()).isEqualTo(5);
    assertThat(CompletionRequest.parse(body.copy().put("max_tokens", 7), false).maxTokens()).isEqualTo(7);
  }

  @Test
  void usageIsOnlyWantedWhenAsked() {
    JsonObject body = new JsonObject().put("prompt", "x").put("stream", true);
    assertThat(CompletionRequest.parse(body, false).includeUsage()).isFalse();
    assertThat(CompletionRequest.parse(body.put("stream_options", new JsonObject()), false).includeUsage()).isFalse();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{}                                          | false | 'prompt' must be a string or a list of strings",
      "{\"prompt\":3}                              | false | 'prompt' must be a string or a list of strings",
      "{\"prompt\":[\"a\",1]}                      | false | Field 'prompt' must be a list of strings",
      "{\"prompt\":\"x\",\"max_tokens\":0}         | false | 'max_tokens' must be a positive integer",
      "{\"prompt\":\"x\",\"max_tokens\":2.5}       | false | 'max_tokens' must be a positive integer",
      "{\"prompt\":\"x\",\"max_tokens\":1e12}      | false | 'max_tokens' must be a positive integer",
      "{\"prompt\":\"x\",\"max_tokens\":\"many\"}  | false | Field 'max_tokens' must be a number",
      "{\"prompt\":\"x\",\"stream\":\"yes\"}       | false | Field 'stream' must be true or false",
      "{\"prompt\":\"x\",\"stream_options\":1}     | false | Field 'stream_options' must be an object",
      "{\"prompt\":\"x\",\"stream_options\":{\"include_usage\":1}} | false | Field 'include_usage' must be true or false",
      "{}                                          | true  | 'messages' must be a non-empty list",
      "{\"messages\":[]}                           | true  | 'messages' must be a non-empty list",
      "{\"messages\":{}}                           | true  | Field 'messages' must be an array",
      "{\"messages\":[\"hi\"]}                     | true  | Every message needs a string 'content'",
      "{\"messages\":[{\"role\":\"user\"}]}        | true  | Every message needs a string 'content'",
      "{\"messages\":[{\"content\":[]}]}           | true  | Field 'content' must be a string",
  })
  void refusesABadRequestWithItsSentence(String body, boolean chat, String sentence) {
    assertThatThrownBy(() -> CompletionRequest.parse(new JsonObject(body), chat))
        .isInstanceOf(BadMessage.class).hasMessage(sentence);
  }
}
