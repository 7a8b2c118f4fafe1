package dev.svc.bench.emulator;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What an OpenAI completion ({@code /v1/completions}) or chat completion request asks of the
 * emulator, read whole by {@link #parse}: a request it cannot answer is refused with one sentence
 * (the emulator's 400), before anything is planned. Keys it does not use (model, temperature, ...)
 * are ignored, as an engine would.
 *
 * @param chat whether it came to {@code /v1/chat/completions}, which answers in the chat form
 * @param prompt the prompt; a completion's list of prompts, or a chat's messages, joined by newlines
 * @param stream whether the answer streams as server-sent events
 * @param includeUsage whether a streamed answer ends with a usage chunk ({@code stream_options.include_usage})
 * @param maxTokens the most tokens to answer with ({@code max_tokens}, else {@code max_completion_tokens});
 *     null when the request sets none
 */
record CompletionRequest(boolean chat, String prompt, boolean stream, boolean includeUsage, Integer maxTokens) {

  static CompletionRequest parse(JsonObject body, boolean chat) {
    String prompt = chat ? chatPrompt(Fields.optArray(body, "messages")) : completionPrompt(body);
    JsonObject streamOptions = Fields.optObject(body, "stream_options");
    boolean includeUsage = streamOptions != null && Fields.optBoolean(streamOptions, "include_usage", false);
    Integer maxTokens = positive(Fields.optNumber(body, "max_tokens", null));
    if (maxTokens == null) {
      maxTokens = positive(Fields.optNumber(body, "max_completion_tokens", null));
    }
    return new CompletionRequest(chat, prompt, Fields.optBoolean(body, "stream", false), includeUsage, maxTokens);
  }

  /** A string, or a list of strings joined by newlines. */
  private static String completionPrompt(JsonObject body) {
    // the one field of two shapes: look at which it is, then read it as that
    Object prompt = body.getValue("prompt");
    if (prompt instanceof JsonArray) {
      return String.join("\n", Fields.optStringList(body, "prompt"));
    }
    if (prompt instanceof String) {
      return Fields.optString(body, "prompt", null);
    }
    throw new BadMessage("'prompt' must be a string or a list of strings");
  }

  private static String chatPrompt(JsonArray messages) {
    if (messages == null || messages.isEmpty()) {
      throw new BadMessage("'messages' must be a non-empty list");
    }
    StringBuilder out = new StringBuilder();
    for (Object m : messages) {
      String content = m instanceof JsonObject message ? Fields.optString(message, "content", null) : null;
      if (content == null) {
        throw new BadMessage("Every message needs a string 'content'");
      }
      out.append(out.length() == 0 ? "" : "\n").append(content);
    }
    return out.toString();
  }

  private static Integer positive(Double value) {
    if (value == null) {
      return null;
    }
    if (value != Math.rint(value) || value < 1 || value > Integer.MAX_VALUE) {
      throw new BadMessage("'max_tokens' must be a positive integer");
    }
    return value.intValue();
  }
}
