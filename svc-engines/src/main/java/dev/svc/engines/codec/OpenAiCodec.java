package dev.svc.engines.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * OpenAI-compatible streaming ({@code /v1/completions}, {@code /v1/chat/completions}), spoken by
 * vLLM and llama.cpp: server-sent events whose data is a JSON chunk, then {@code [DONE]}. Usage is
 * requested with {@code stream_options.include_usage} and arrives in a chunk of its own.
 */
final class OpenAiCodec implements EngineCodec {

  static final OpenAiCodec INSTANCE = new OpenAiCodec();
  private static final String FORMAT = "OpenAI";

  private OpenAiCodec() {}

  @Override
  public String path(GenerationRequest request) {
    return request.mode() == GenerationRequest.Mode.CHAT ? "/v1/chat/completions" : "/v1/completions";
  }

  @Override
  public String body(GenerationRequest request) {
    ObjectNode body = Json.prompted(request);
    body.put("max_tokens", request.maxTokens());
    body.put("stream", true);
    body.putObject("stream_options").put("include_usage", true);
    return Json.write(body);
  }

  @Override
  public StreamFraming framing(GenerationRequest request) {
    return StreamFraming.SERVER_SENT_EVENTS;
  }

  @Override
  public StreamChunk parse(GenerationRequest request, String line) {
    String data = SseLine.data(line);
    if (data == null || data.isBlank()) {
      return StreamChunk.NOTHING;
    }
    if (data.strip().equals("[DONE]")) {
      return new StreamChunk("", null, true, null);
    }
    JsonNode chunk = Json.readObject(data, FORMAT);
    JsonNode error = chunk.get("error");
    if (error != null && !error.isNull()) {
      String message = error.isTextual() ? error.textValue() : Json.text(error, "message");
      return StreamChunk.error(message != null ? message : error.toString());
    }
    String text = "";
    JsonNode choices = chunk.get("choices");
    if (choices != null && choices.isArray() && !choices.isEmpty()) {
      JsonNode choice = choices.get(0);
      String piece = request.mode() == GenerationRequest.Mode.CHAT
          ? Json.text(choice.get("delta"), "content")
          : Json.text(choice, "text");
      text = piece == null ? "" : piece;
    }
    TokenUsage usage = null;
    JsonNode usageNode = chunk.get("usage");
    if (usageNode != null && usageNode.isObject()) {
      usage = new TokenUsage(
          Json.integer(usageNode, "prompt_tokens"), Json.integer(usageNode, "completion_tokens"));
    }
    return new StreamChunk(text, usage, false, null, timings(chunk.get("timings")));
  }

  /** llama.cpp's {@code timings} (prompt_ms, predicted_ms, predicted_n), when the chunk has them. */
  private static ServerTimings timings(JsonNode node) {
    if (node == null || !node.isObject()) {
      return null;
    }
    JsonNode prompt = node.get("prompt_ms");
    JsonNode predicted = node.get("predicted_ms");
    JsonNode tokens = node.get("predicted_n");
    if (prompt == null || !prompt.isNumber() || predicted == null || !predicted.isNumber() || tokens == null
        || !tokens.isNumber()) {
      return null;
    }
    return new ServerTimings(prompt.asDouble(), predicted.asDouble(), tokens.asInt());
  }
}
