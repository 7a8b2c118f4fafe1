package dev.svc.bench.client;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.engines.codec.TokenUsage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A whole (non-streaming) OpenAI completion or chat completion response, read by {@link #parse}:
 * the text of its choices ({@code message.content} in chat, {@code text} otherwise) and its
 * {@code usage}. A response of the wrong shape is refused with one sentence; keys it does not use
 * are ignored.
 *
 * @param text every choice's text, in order; empty when there are none
 * @param usage the token counts the engine reported (each null when not given); null without {@code usage}
 */
record OpenAiResponse(String text, TokenUsage usage) {

  static OpenAiResponse parse(JsonObject body) {
    JsonArray choices = Fields.optArray(body, "choices");
    StringBuilder text = new StringBuilder();
    for (int i = 0; choices != null && i < choices.size(); i++) {
      if (!(choices.getValue(i) instanceof JsonObject choice)) {
        throw new BadMessage("Every choice must be an object");
      }
      JsonObject message = Fields.optObject(choice, "message");
      String piece = message != null ? generated(message, "content") : generated(choice, "text");
      if (piece != null) {
        text.append(piece);
      }
    }
    JsonObject usage = Fields.optObject(body, "usage");
    return new OpenAiResponse(text.toString(), usage == null ? null : new TokenUsage(
        Fields.optInt(usage, "prompt_tokens", null, 0, Integer.MAX_VALUE),
        Fields.optInt(usage, "completion_tokens", null, 0, Integer.MAX_VALUE)));
  }

  /**
   * Generated text, taken as the engine wrote it: a model may emit any character (NUL included), and
   * a response is not refused for what the model said.
   */
  private static String generated(JsonObject holder, String field) {
    Object value = holder.getValue(field);
    if (value != null && !(value instanceof String)) {
      throw new BadMessage("Field '" + field + "' must be a string");
    }
    return (String) value;
  }
}
