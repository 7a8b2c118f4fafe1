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
  void cachedPromptTokensComeFromOpenAiUsageDetails() {
    // vLLM with prefix caching: the last chunk's usage (stream_options.include_usage)
    StreamChunk chunk = codec.parse(completion, "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[],"
        + "\"usage\":{\"prompt_tokens\":120,\"total_tokens\":128,\"completion_tokens\":8,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":96}}}");
    assertThat(chunk.usage()).isEqualTo(new TokenUsage(120, 8, 96));

    // vLLM without --enable-prompt-tokens-details, and engines that give no details: unknown, not 0
    assertThat(codec.parse(completion, "data: {\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":8,"
        + "\"prompt_tokens_details\":null}}").usage()).isEqualTo(new TokenUsage(120, 8, null));
    assertThat(codec.parse(completion, "data: {\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":8}}").usage()
        .cachedPromptTokens()).isNull();
    for (String odd : new String[] {"\"3\"", "-1", "2.5", "null", "[3]", "{\"n\":3}", "99999999999"}) {
      assertThat(codec.parse(completion, "data: {\"usage\":{\"completion_tokens\":8,\"prompt_tokens_details\":"
          + "{\"cached_tokens\":" + odd + ",\"audio_tokens\":0}}}").usage()).as(odd).isEqualTo(new TokenUsage(null, 8, null));
    }
    assertThat(codec.parse(completion, "data: {\"usage\":{\"prompt_tokens_details\":[1],\"completion_tokens\":8}}")
        .usage()).isEqualTo(new TokenUsage(null, 8, null));
  }

  @Test
  void llamaCppsLastChunkGivesTheCachedPromptTokensAndItsTimings() {
    // as llama-server (node-llama-cpp 3.22.1's llama.cpp) ends a streamed completion of a prompt it had seen
    StreamChunk chunk = codec.parse(completion, "data: {\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":null,"
        + "\"finish_reason\":\"length\"}],\"created\":1795939434,\"model\":\"tiny\",\"system_fingerprint\":\"b1-de3ff81\","
        + "\"object\":\"text_completion\",\"usage\":{\"completion_tokens\":4,\"prompt_tokens\":58,\"total_tokens\":62,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":57}},\"id\":\"chatcmpl-LzSE\",\"timings\":{\"cache_n\":57,"
        + "\"prompt_n\":1,\"prompt_ms\":0.662,\"prompt_per_token_ms\":0.662,\"prompt_per_second\":1510.57,"
        + "\"predicted_n\":4,\"predicted_ms\":0.792,\"predicted_per_token_ms\":0.264,\"predicted_per_second\":3787.87}}");
    assertThat(chunk.usage()).isEqualTo(new TokenUsage(58, 4, 57));
    assertThat(chunk.timings()).isEqualTo(new ServerTimings(0.662, 0.792, 4));

    // builds whose usage has no details: cache_n says it
    assertThat(codec.parse(completion, "data: {\"usage\":{\"completion_tokens\":4,\"prompt_tokens\":58},"
        + "\"timings\":{\"cache_n\":57,\"prompt_n\":1,\"prompt_ms\":0.6,\"predicted_n\":4,\"predicted_ms\":0.8}}").usage())
        .isEqualTo(new TokenUsage(58, 4, 57));
    // timings without usage: the prompt is what was computed and what was cached
    StreamChunk timingsOnly = codec.parse(completion, "data: {\"choices\":[{\"text\":\"\"}],"
        + "\"timings\":{\"cache_n\":40,\"prompt_n\":18}}");
    assertThat(timingsOnly.usage()).isEqualTo(new TokenUsage(58, null, 40));
    assertThat(timingsOnly.timings()).isNull();
    // where both speak, usage's details count
    assertThat(codec.parse(completion, "data: {\"usage\":{\"completion_tokens\":4,\"prompt_tokens\":58,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":50}},\"timings\":{\"cache_n\":57}}").usage())
        .isEqualTo(new TokenUsage(58, 4, 50));
    // a first request on an empty cache: 0 cached, which is known
    assertThat(codec.parse(completion, "data: {\"timings\":{\"cache_n\":0,\"prompt_n\":58}}").usage())
        .isEqualTo(new TokenUsage(58, null, 0));
    assertThat(codec.parse(completion, "data: {\"timings\":{\"prompt_n\":58,\"prompt_ms\":1}}").usage()).isNull();
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
