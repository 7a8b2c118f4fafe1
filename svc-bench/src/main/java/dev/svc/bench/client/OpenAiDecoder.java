package dev.svc.bench.client;

import dev.svc.engines.codec.TokenUsage;
import io.vertx.core.json.JsonObject;

/**
 * A whole (non-streaming) OpenAI completions or chat completions response: its text and usage.
 * Streamed answers go through the engine codecs; this is for the load generator's request-rate
 * benchmark, whose requests do not stream.
 */
final class OpenAiDecoder implements StreamDecoder {

  @Override
  public Chunk line(String line) {
    throw new IllegalArgumentException("A whole response has no stream lines");
  }

  @Override
  public Chunk whole(JsonObject body) {
    OpenAiResponse response = OpenAiResponse.parse(body);
    TokenUsage usage = response.usage();
    Integer prompt = usage == null ? null : usage.promptTokens();
    Integer completion = usage == null ? null : usage.completionTokens();
    return new Chunk(response.text(), prompt == null ? -1 : prompt, completion == null ? -1 : completion, -1, true, null,
        null);
  }
}
