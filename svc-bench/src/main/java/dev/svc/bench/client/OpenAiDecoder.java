package dev.svc.bench.client;

import io.vertx.core.json.JsonArray;
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
    StringBuilder text = new StringBuilder();
    JsonArray choices = body.getJsonArray("choices", new JsonArray());
    for (int i = 0; i < choices.size(); i++) {
      JsonObject choice = choices.getJsonObject(i);
      JsonObject message = choice.getJsonObject("message");
      String piece = message != null ? message.getString("content") : choice.getString("text");
      if (piece != null) {
        text.append(piece);
      }
    }
    JsonObject usage = body.getJsonObject("usage");
    return new Chunk(text.toString(), usage == null ? -1 : usage.getInteger("prompt_tokens", -1),
        usage == null ? -1 : usage.getInteger("completion_tokens", -1), true, null, null);
  }
}
