package dev.svc.engines.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Ollama's native streaming ({@code /api/generate}, {@code /api/chat}): one JSON object per line,
 * the text in {@code response} (chat: {@code message.content}), the last object {@code "done":
 * true} with {@code prompt_eval_count} and {@code eval_count}.
 */
final class OllamaCodec implements EngineCodec {

  static final OllamaCodec INSTANCE = new OllamaCodec();
  private static final String FORMAT = "Ollama";

  private OllamaCodec() {}

  @Override
  public String path(GenerationRequest request) {
    return request.mode() == GenerationRequest.Mode.CHAT ? "/api/chat" : "/api/generate";
  }

  @Override
  public String body(GenerationRequest request) {
    ObjectNode body = Json.prompted(request);
    body.put("stream", true);
    body.putObject("options").put("num_predict", request.maxTokens());
    return Json.write(body);
  }

  @Override
  public StreamFraming framing(GenerationRequest request) {
    return StreamFraming.JSON_LINES;
  }

  @Override
  public StreamChunk parse(GenerationRequest request, String line) {
    if (line == null || line.isBlank()) {
      return StreamChunk.NOTHING;
    }
    JsonNode object = Json.readObject(line.strip(), FORMAT);
    String error = Json.text(object, "error");
    if (error != null) {
      return StreamChunk.error(error);
    }
    String text = request.mode() == GenerationRequest.Mode.CHAT
        ? Json.text(object.get("message"), "content")
        : Json.text(object, "response");
    boolean done = object.path("done").asBoolean(false);
    TokenUsage usage = null;
    if (done) {
      usage = new TokenUsage(Json.integer(object, "prompt_eval_count"), Json.integer(object, "eval_count"));
    }
    return new StreamChunk(text == null ? "" : text, usage, done, null);
  }
}
