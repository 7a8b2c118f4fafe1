package dev.svc.engines.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.engines.RequestApi;
import org.junit.jupiter.api.Test;

/** How the OpenAI codec reads single stream lines, field by field: what it takes, what it skips, what it refuses. */
class OpenAiCodecParseTest {

  private final EngineCodec codec = EngineCodec.forApi(RequestApi.OPENAI);
  private final GenerationRequest completion = GenerationRequest.completion("m", "p", 8);
  private final GenerationRequest chat = GenerationRequest.chat("m", "p", 8);

  @Test
  void aCompletionChunkGivesTheFirstChoicesTextAndSkipsEverythingElse() {
    StreamChunk chunk = codec.parse(completion, "data: {\"id\":\"c1\",\"object\":\"text_completion\",\"created\":1,"
        + "\"choices\":[{\"index\":0,\"logprobs\":{\"tokens\":[\"a\"],\"top\":[{\"a\":-1.5}]},\"text\":\" w1\","
        + "\"finish_reason\":null},{\"index\":1,\"text\":\" other\"}],\"system_fingerprint\":[1,{\"x\":[]}]}");

    assertThat(chunk).isEqualTo(new StreamChunk(" w1", null, false, null, null));
  }

  @Test
  void aChatChunkGivesTheDeltasContent() {
    assertThat(codec.parse(chat, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"Hé \\\"x\\\"\\n\"}}]}").text())
        .isEqualTo("Hé \"x\"\n");
    assertThat(codec.parse(chat, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}").text()).isEmpty();
    assertThat(codec.parse(chat, "data: {\"choices\":[{\"delta\":{\"content\":null}}]}").text()).isEmpty();
    assertThat(codec.parse(chat, "data: {\"choices\":[{\"text\":\"not chat\"}]}").text()).isEmpty();
    assertThat(codec.parse(completion, "data: {\"choices\":[{\"delta\":{\"content\":\"not completion\"}}]}").text()).isEmpty();
  }

  @Test
  void choicesThatAreNotAListOfObjectsGiveNoText() {
    for (String choices : new String[] {"[]", "null", "\"x\"", "{\"text\":\"x\"}", "[\"x\"]", "[7,{\"text\":\"second\"}]",
        "[{\"text\":5}]", "[{\"text\":[\"x\"]}]"}) {
      assertThat(codec.parse(completion, "data: {\"choices\":" + choices + "}").text()).as(choices).isEmpty();
    }
  }

  @Test
  void usageGivesTheIntegerCountsAndNullForOthers() {
    StreamChunk chunk = codec.parse(completion, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,"
        + "\"completion_tokens\":64,\"total_tokens\":73,\"details\":{\"cached\":1}}}");
    assertThat(chunk.usage()).isEqualTo(new TokenUsage(9, 64));
    assertThat(chunk.text()).isEmpty();
    assertThat(chunk.done()).isFalse();

    assertThat(codec.parse(completion, "data: {\"usage\":{\"prompt_tokens\":\"9\",\"completion_tokens\":2.5}}").usage())
        .isEqualTo(new TokenUsage(null, null));
    assertThat(codec.parse(completion, "data: {\"usage\":null}").usage()).isNull();
    assertThat(codec.parse(completion, "data: {\"usage\":[1,2]}").usage()).isNull();
  }

  @Test
  void llamaCppTimingsNeedAllThreeNumbers() {
    StreamChunk chunk = codec.parse(completion, "data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"length\"}],"
        + "\"timings\":{\"prompt_n\":5,\"prompt_ms\":26.5,\"predicted_n\":64,\"predicted_ms\":210,\"predicted_per_second\":304.7}}");
    assertThat(chunk.timings()).isEqualTo(new ServerTimings(26.5, 210.0, 64));

    assertThat(codec.parse(completion, "data: {\"timings\":{\"prompt_ms\":26.5,\"predicted_n\":64}}").timings()).isNull();
    assertThat(codec.parse(completion, "data: {\"timings\":{\"prompt_ms\":\"26\",\"predicted_ms\":1,\"predicted_n\":1}}")
        .timings()).isNull();
    assertThat(codec.parse(completion, "data: {\"timings\":7}").timings()).isNull();
  }

  @Test
  void whereAFieldRepeatsTheLastOneCounts() {
    assertThat(codec.parse(completion, "data: {\"choices\":[{\"text\":\"a\",\"text\":\"b\"}]}").text()).isEqualTo("b");
    assertThat(codec.parse(completion, "data: {\"choices\":[{\"text\":\"a\"}],\"choices\":7}").text()).isEmpty();
    assertThat(codec.parse(chat, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"delta\":3}]}").text()).isEmpty();
    assertThat(codec.parse(completion, "data: {\"usage\":{\"completion_tokens\":1},\"usage\":{\"completion_tokens\":2}}")
        .usage()).isEqualTo(new TokenUsage(null, 2));
  }

  @Test
  void anErrorEndsTheStreamWithItsMessage() {
    assertThat(codec.parse(completion, "data: {\"error\":\"overloaded\"}")).isEqualTo(StreamChunk.error("overloaded"));
    assertThat(codec.parse(completion, "data: {\"choices\":[{\"text\":\"x\"}],\"error\":{\"message\":\"bad\",\"code\":400}}"))
        .isEqualTo(StreamChunk.error("bad"));
    assertThat(codec.parse(completion, "data: {\"error\":{\"code\":500}}").error()).isEqualTo("{\"code\":500}");
    assertThat(codec.parse(completion, "data: {\"error\":[1]}").error()).isEqualTo("[1]");
    assertThat(codec.parse(completion, "data: {\"error\":null,\"choices\":[{\"text\":\"x\"}]}").text()).isEqualTo("x");
  }

  @Test
  void doneBlankAndOtherSseLines() {
    assertThat(codec.parse(completion, "data: [DONE]").done()).isTrue();
    assertThat(codec.parse(completion, "data:[DONE]\r").done()).isTrue();
    assertThat(codec.parse(completion, "")).isSameAs(StreamChunk.NOTHING);
    assertThat(codec.parse(completion, "data: ")).isSameAs(StreamChunk.NOTHING);
    assertThat(codec.parse(completion, ": keep-alive")).isSameAs(StreamChunk.NOTHING);
    assertThat(codec.parse(completion, "event: message")).isSameAs(StreamChunk.NOTHING);
  }

  @Test
  void aLineThatIsNotAJsonObjectIsMalformed() {
    assertThatThrownBy(() -> codec.parse(completion, "data: {\"choices\":[{\"text\":\"x\"}"))
        .isInstanceOf(MalformedChunkException.class).hasMessageStartingWith("OpenAI stream line is not JSON: ");
    assertThatThrownBy(() -> codec.parse(completion, "data: not json"))
        .isInstanceOf(MalformedChunkException.class).hasMessageStartingWith("OpenAI stream line is not JSON: ");
    for (String data : new String[] {"[1,2]", "\"text\"", "42", "null"}) {
      assertThatThrownBy(() -> codec.parse(completion, "data: " + data)).as(data)
          .isInstanceOf(MalformedChunkException.class).hasMessage("OpenAI stream line is not a JSON object: " + data);
    }
  }
}
