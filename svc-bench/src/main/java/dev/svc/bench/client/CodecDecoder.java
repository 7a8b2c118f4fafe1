package dev.svc.bench.client;

import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import dev.svc.engines.codec.StreamChunk;
import io.vertx.core.json.JsonObject;

/** A streamed answer read through the engine's codec (svc-engines), the one parser of each wire format. */
final class CodecDecoder implements StreamDecoder {

  private final EngineCodec codec;
  private final GenerationRequest request;

  CodecDecoder(EngineCodec codec, GenerationRequest request) {
    this.codec = codec;
    this.request = request;
  }

  @Override
  public Chunk line(String line) {
    StreamChunk chunk = codec.parse(request, line);
    if (chunk == StreamChunk.NOTHING) {
      return null;
    }
    Integer prompt = chunk.usage() == null ? null : chunk.usage().promptTokens();
    Integer completion = chunk.usage() == null ? null : chunk.usage().completionTokens();
    Integer cached = chunk.usage() == null ? null : chunk.usage().cachedPromptTokens();
    return new Chunk(chunk.text(), prompt == null ? -1 : prompt, completion == null ? -1 : completion,
        cached == null ? -1 : cached, chunk.done(), chunk.error(), chunk.timings());
  }

  @Override
  public Chunk whole(JsonObject body) {
    throw new IllegalArgumentException("The " + codec.getClass().getSimpleName() + " requests stream");
  }
}
