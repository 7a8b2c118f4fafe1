package dev.svc.engines.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.svc.engines.RequestApi;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Ollama's native /api/generate and /api/chat, against byte-exact samples of its JSON-lines stream. */
class OllamaCodecTest {

  private final EngineCodec codec = EngineCodec.forApi(RequestApi.OLLAMA_NATIVE);
  private final GenerationRequest generate = GenerationRequest.completion("llama3.2", "Why is the sky blue?", 4);
  private final GenerationRequest chat = GenerationRequest.chat("llama3.2", "Why is the sky blue?", 3);

  @Test
  void generateRequestStreamsWithNumPredict() throws IOException {
    JsonNode body = new ObjectMapper().readTree(codec.body(generate));

    assertThat(codec.path(generate)).isEqualTo("/api/generate");
    assertThat(codec.framing(generate)).isEqualTo(StreamFraming.JSON_LINES);
    assertThat(body.get("model").asText()).isEqualTo("llama3.2");
    assertThat(body.get("prompt").asText()).isEqualTo("Why is the sky blue?");
    assertThat(body.get("stream").asBoolean()).isTrue();
    assertThat(body.at("/options/num_predict").asInt()).isEqualTo(4);
  }

  @Test
  void generateStreamGivesTheResponsePiecesAndTheFinalCounts() throws IOException {
    StreamReplay replay = StreamReplay.of(codec, generate, "ollama-generate-stream.ndjson");

    assertThat(replay.text.toString()).isEqualTo("The sky is <blue>");
    assertThat(replay.contentChunks).isEqualTo(4);
    assertThat(replay.usage).isEqualTo(new TokenUsage(26, 4));
    assertThat(replay.doneAt).isEqualTo(4);
    assertThat(replay.chunks.subList(0, 4)).allSatisfy(chunk -> assertThat(chunk.usage()).isNull());
  }

  @Test
  void chatStreamGivesTheMessageContent() throws IOException {
    JsonNode body = new ObjectMapper().readTree(codec.body(chat));
    StreamReplay replay = StreamReplay.of(codec, chat, "ollama-chat-stream.ndjson");

    assertThat(codec.path(chat)).isEqualTo("/api/chat");
    assertThat(body.at("/messages/0/role").asText()).isEqualTo("user");
    assertThat(body.at("/messages/0/content").asText()).isEqualTo("Why is the sky blue?");
    assertThat(replay.text.toString()).isEqualTo("Rayleigh scattering.");
    assertThat(replay.usage).isEqualTo(new TokenUsage(31, 3));
    assertThat(replay.doneAt).isEqualTo(3);
  }

  @Test
  void errorLineEndsTheStreamWithTheEnginesMessage() throws IOException {
    StreamReplay replay = StreamReplay.of(codec, generate, "ollama-error.ndjson");

    assertThat(replay.error).isEqualTo("model \"llama3.2\" not found, try pulling it first");
    assertThat(replay.doneAt).isZero();
  }

  @Test
  void aLineThatIsNotJsonIsMalformed() {
    assertThatThrownBy(() -> codec.parse(generate, "{\"response\":"))
        .isInstanceOf(MalformedChunkException.class)
        .hasMessageContaining("Ollama stream line is not JSON");
  }
}
