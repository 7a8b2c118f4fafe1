package dev.svc.engines.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.svc.engines.RequestApi;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** TGI's native /generate_stream, against byte-exact samples of its documented SSE format. */
class TgiCodecTest {

  private final EngineCodec codec = EngineCodec.forApi(RequestApi.TGI_NATIVE);
  private final GenerationRequest request = GenerationRequest.completion("ignored", "What is Deep Learning?", 5);

  @Test
  void requestIsAStreamedGenerateWithDetails() throws IOException {
    JsonNode body = new ObjectMapper().readTree(codec.body(request));

    assertThat(codec.path(request)).isEqualTo("/generate_stream");
    assertThat(codec.framing(request)).isEqualTo(StreamFraming.SERVER_SENT_EVENTS);
    assertThat(body.get("inputs").asText()).isEqualTo("What is Deep Learning?");
    assertThat(body.at("/parameters/max_new_tokens").asInt()).isEqualTo(5);
    assertThat(body.at("/parameters/details").asBoolean()).isTrue();
  }

  @Test
  void lengthFinishedStreamGivesEveryTokenAndTheFinalDetails() throws IOException {
    StreamReplay replay = StreamReplay.of(codec, request, "tgi-generate-stream-length.txt");

    assertThat(replay.text.toString()).isEqualTo(" Deep learning is a subset");
    assertThat(replay.contentChunks).isEqualTo(5);
    assertThat(replay.usage).isEqualTo(new TokenUsage(7, 5));
    assertThat(replay.lines.get(replay.doneAt)).startsWith("data:{\"index\":5,");
    assertThat(replay.error).isNull();
    // the blank separator lines carry nothing
    assertThat(replay.chunks.get(1)).isEqualTo(StreamChunk.NOTHING);
  }

  @Test
  void specialEosTokenAddsNoText() throws IOException {
    StreamReplay replay = StreamReplay.of(codec, request, "tgi-generate-stream-eos.txt");

    assertThat(replay.text.toString()).isEqualTo("Hello\n");
    assertThat(replay.contentChunks).isEqualTo(2);
    assertThat(replay.usage).isEqualTo(new TokenUsage(4, 3));
    assertThat(replay.chunks.get(replay.doneAt).text()).isEmpty();
  }

  @Test
  void errorEventEndsTheStreamWithTheEnginesMessage() throws IOException {
    StreamReplay replay = StreamReplay.of(codec, request, "tgi-generate-stream-error.txt");

    assertThat(replay.text.toString()).isEqualTo("Hi");
    assertThat(replay.error).isEqualTo("Request failed during generation: Server error: CUDA out of memory");
    assertThat(replay.chunks.get(replay.doneAt).error()).isEqualTo(replay.error);
  }

  @Test
  void chatTurnsUseTheOpenAiCompatibleRoute() throws IOException {
    GenerationRequest chat = GenerationRequest.chat("tgi", "Hello?", 3);

    assertThat(codec.path(chat)).isEqualTo("/v1/chat/completions");
    assertThat(new ObjectMapper().readTree(codec.body(chat)).at("/messages/0/content").asText()).isEqualTo("Hello?");
    assertThat(StreamReplay.of(codec, chat, "openai-chat-stream.txt").text.toString()).isEqualTo("Hello!");
  }

  @Test
  void aDataLineThatIsNotAnEventIsMalformed() {
    assertThatThrownBy(() -> codec.parse(request, "data:{\"index\":1}"))
        .isInstanceOf(MalformedChunkException.class)
        .hasMessageContaining("TGI stream event has no token");
    assertThatThrownBy(() -> codec.parse(request, "data:not json"))
        .isInstanceOf(MalformedChunkException.class)
        .hasMessageContaining("TGI stream line is not JSON");
  }
}
