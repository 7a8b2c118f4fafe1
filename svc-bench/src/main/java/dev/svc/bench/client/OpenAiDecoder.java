package dev.svc.bench.client;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** OpenAI completions and chat completions: SSE {@code data:} lines, {@code [DONE]}, optional usage. */
public final class OpenAiDecoder implements StreamDecoder {

  @Override
  public Chunk line(String line) {
    if (!line.startsWith("data:")) {
      return null;
    }
    String data = line.substring(5).trim();
    if (data.equals("[DONE]")) {
      return Chunk.DONE;
    }
    if (data.isEmpty()) {
      return null;
    }
    return read(new JsonObject(data), false);
  }

  @Override
  public Chunk whole(JsonObject body) {
    return read(body, true);
  }

  private static Chunk read(JsonObject json, boolean whole) {
    StringBuilder text = new StringBuilder();
    JsonArray choices = json.getJsonArray("choices", new JsonArray());
    for (int i = 0; i < choices.size(); i++) {
      JsonObject choice = choices.getJsonObject(i);
      JsonObject part = choice.getJsonObject(whole ? "message" : "delta");
      String piece = part != null ? part.getString("content") : choice.getString("text");
      if (piece != null) {
        text.append(piece);
      }
    }
    JsonObject usage = json.getJsonObject("usage");
    int prompt = usage == null ? -1 : usage.getInteger("prompt_tokens", -1);
    int completion = usage == null ? -1 : usage.getInteger("completion_tokens", -1);
    return new Chunk(text.toString(), prompt, completion, false);
  }
}
