package dev.svc.bench.client;

import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/** One request to send: the path, the body, whether it streams, and how to read the answer. */
public record RequestSpec(String path, Buffer body, boolean streaming, StreamDecoder decoder) {

  /** A streamed generation in the engine's own dialect. */
  public static RequestSpec streamed(EngineCodec codec, GenerationRequest request) {
    return new RequestSpec(codec.path(request), Buffer.buffer(codec.body(request)), true, new CodecDecoder(codec, request));
  }

  /** A non-streaming OpenAI completion (the request-rate benchmark's request). */
  public static RequestSpec openAiWhole(String model, String prompt, int maxTokens) {
    return new RequestSpec("/v1/completions", new JsonObject().put("model", model).put("prompt", prompt)
        .put("max_tokens", maxTokens).toBuffer(), false, new OpenAiDecoder());
  }
}
