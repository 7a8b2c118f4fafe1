package dev.svc.engines.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.svc.engines.RequestApi;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * The OpenAI codec's request bodies and its reading of a chat stream sample; the live test against
 * llama.cpp is {@code dev.svc.engines.lifecycle.LlamaCppLifecycleTest}.
 */
class OpenAiCodecSampleTest {

  private final EngineCodec codec = EngineCodec.forApi(RequestApi.OPENAI);

  @Test
  void completionRequestAsksForAStreamWithUsage() throws IOException {
    GenerationRequest request = GenerationRequest.completion("tiny", "Once upon", 16);
    JsonNode body = new ObjectMapper().readTree(codec.body(request));

    assertThat(codec.path(request)).isEqualTo("/v1/completions");
    assertThat(body.get("model").asText()).isEqualTo("tiny");
    assertThat(body.get("prompt").asText()).isEqualTo("Once upon");
    assertThat(body.get("max_tokens").asInt()).isEqualTo(16);
    assertThat(body.get("stream").asBoolean()).isTrue();
    assertThat(body.at("/stream_options/include_usage").asBoolean()).isTrue();
  }

  @Test
  void chatStreamGivesDeltasThenUsageThenDone() throws IOException {
    GenerationRequest request = GenerationRequest.chat("tiny", "Hi", 2);
    StreamReplay replay = StreamReplay.of(codec, request, "openai-chat-stream.txt");

    assertThat(codec.path(request)).isEqualTo("/v1/chat/completions");
    assertThat(replay.text.toString()).isEqualTo("Hello!");
    assertThat(replay.contentChunks).isEqualTo(2);
    assertThat(replay.usage).isEqualTo(new TokenUsage(9, 2));
    assertThat(replay.lines.get(replay.doneAt)).isEqualTo("data: [DONE]");
  }

  @Test
  void errorChunkCarriesTheMessage() {
    StreamChunk chunk = codec.parse(
        GenerationRequest.completion("tiny", "x", 1),
        "data: {\"error\":{\"code\":500,\"message\":\"context shift is disabled\",\"type\":\"server_error\"}}");

    assertThat(chunk.error()).isEqualTo("context shift is disabled");
    assertThat(chunk.done()).isTrue();
  }
}
