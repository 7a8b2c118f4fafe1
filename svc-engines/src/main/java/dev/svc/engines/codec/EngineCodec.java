package dev.svc.engines.codec;

import dev.svc.engines.RequestApi;

/**
 * How a benchmark client talks to one kind of engine: where to send a streamed generation, the
 * JSON body to send, and what each line of the streamed answer means. Stateless and thread-safe;
 * the client does the HTTP and the timing, the codec only the engine's dialect.
 */
public interface EngineCodec {

  /** The codec for an engine's request protocol. */
  static EngineCodec forApi(RequestApi api) {
    return switch (api) {
      case OPENAI -> OpenAiCodec.INSTANCE;
      case TGI_NATIVE -> TgiCodec.INSTANCE;
      case OLLAMA_NATIVE -> OllamaCodec.INSTANCE;
    };
  }

  /** The HTTP path (POST) that streams this request, e.g. {@code /v1/completions}. */
  String path(GenerationRequest request);

  /** The JSON body that asks for this request as a stream. */
  String body(GenerationRequest request);

  /** How the answer to this request is split into lines. */
  StreamFraming framing(GenerationRequest request);

  /**
   * What one line of the streamed answer carries, without its line terminator.
   *
   * @throws MalformedChunkException when a data line is not what the format promises
   */
  StreamChunk parse(GenerationRequest request, String line);
}
