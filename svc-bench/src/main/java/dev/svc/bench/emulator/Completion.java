package dev.svc.bench.emulator;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One emulated completion: what was asked (prompt, stream, usage wanted), the pieces of text to
 * send (one token each) and the OpenAI wire form of every chunk.
 */
record Completion(boolean chat, boolean stream, boolean includeUsage, String id, long created, long arrival,
    List<String> pieces, int promptTokens, boolean answered, List<Double> jitters) {

  static Completion of(CompletionRequest request, EmulatorOptions options, long arrival, SplittableRandom random) {
    boolean chat = request.chat();
    String prompt = request.prompt();
    int maxTokens = request.maxTokens() == null ? options.tokens() : request.maxTokens();
    String answer = options.answers() == null ? null : options.answers().answer(prompt);
    List<String> pieces = answer == null ? filler(Math.min(options.tokens(), maxTokens)) : split(answer, maxTokens);
    String id = (chat ? "chatcmpl-" : "cmpl-") + Long.toHexString(random.nextLong());
    return new Completion(chat, request.stream(), request.includeUsage(), id, System.currentTimeMillis() / 1000, arrival,
        pieces, Math.max(1, words(prompt)), answer != null, EngineEmulator.jitters(random, pieces.size(), options.jitterMs()));
  }

  double jitterMs(int i) {
    return jitters.get(i);
  }

  Buffer roleChunk() {
    return event(chunk(new JsonObject().put("index", 0).put("delta", new JsonObject().put("role", "assistant").put("content", ""))
        .putNull("finish_reason")));
  }

  Buffer tokenChunk(int i) {
    return tokenChunk(i, pieces.get(i));
  }

  /** Token i's chunk carrying {@code text} instead of the planned piece (the emulator's clock stamps). */
  Buffer tokenChunk(int i, String text) {
    return tokenChunk(i, text, null);
  }

  /** Token i's chunk carrying {@code text}, and {@code timings} (llama.cpp's field) unless null. */
  Buffer tokenChunk(int i, String text, JsonObject timings) {
    boolean last = i == pieces.size() - 1;
    JsonObject choice = chat
        ? new JsonObject().put("index", 0).put("delta", new JsonObject().put("content", text))
        : new JsonObject().put("index", 0).put("text", text).putNull("logprobs");
    choice.put("finish_reason", last ? finishReason() : null);
    JsonObject chunk = chunk(choice);
    return event(timings == null ? chunk : chunk.put("timings", timings));
  }

  /** After the last token: the usage chunk when asked for, then [DONE]. */
  Buffer tail() {
    Buffer out = Buffer.buffer();
    if (includeUsage) {
      out.appendBuffer(event(base(chat ? "chat.completion.chunk" : "text_completion").put("choices", new JsonArray())
          .put("usage", usage())));
    }
    return out.appendString("data: [DONE]\n\n");
  }

  /** The non-streaming response. */
  JsonObject whole() {
    String text = String.join("", pieces);
    JsonObject choice = chat
        ? new JsonObject().put("index", 0).put("message", new JsonObject().put("role", "assistant").put("content", text))
        : new JsonObject().put("index", 0).put("text", text).putNull("logprobs");
    choice.put("finish_reason", finishReason());
    return base(chat ? "chat.completion" : "text_completion").put("choices", new JsonArray().add(choice)).put("usage", usage());
  }

  private String finishReason() {
    return answered ? "stop" : "length";
  }

  private JsonObject usage() {
    return new JsonObject().put("prompt_tokens", promptTokens).put("completion_tokens", pieces.size())
        .put("total_tokens", promptTokens + pieces.size());
  }

  private JsonObject chunk(JsonObject choice) {
    return base(chat ? "chat.completion.chunk" : "text_completion").put("choices", new JsonArray().add(choice));
  }

  private JsonObject base(String object) {
    return new JsonObject().put("id", id).put("object", object).put("created", created).put("model", EngineEmulator.MODEL_ID);
  }

  private static Buffer event(JsonObject data) {
    return Buffer.buffer("data: ").appendString(data.encode()).appendString("\n\n");
  }

  /** Filler tokens " w1", " w2", ...: printable, one word each. */
  private static List<String> filler(int count) {
    List<String> out = new ArrayList<>(count);
    for (int i = 1; i <= count; i++) {
      out.add(" w" + i);
    }
    return out;
  }

  /** An answer as tokens: each word with the whitespace before it, at most {@code max} of them. */
  private static List<String> split(String answer, int max) {
    List<String> out = new ArrayList<>();
    for (String piece : answer.split("(?=\\s+\\S)")) {
      if (!piece.isEmpty() && out.size() < max) {
        out.add(piece);
      }
    }
    if (out.isEmpty()) {
      out.add(answer.isEmpty() ? " " : answer);
    }
    return out;
  }

  private static int words(String text) {
    String trimmed = text.trim();
    return trimmed.isEmpty() ? 0 : trimmed.split("\\s+").length;
  }
}
