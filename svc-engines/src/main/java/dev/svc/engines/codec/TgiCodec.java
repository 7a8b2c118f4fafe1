package dev.svc.engines.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Text Generation Inference's native streaming ({@code /generate_stream}): server-sent events, one
 * per token ({@code token.text}; special tokens such as EOS carry no text for the user), the last
 * one with {@code generated_text} set and, as requested with {@code details}, the finish details
 * ({@code generated_tokens}, {@code input_length}). TGI has no native chat: chat turns go through
 * its OpenAI-compatible {@code /v1/chat/completions}.
 */
final class TgiCodec implements EngineCodec {

  static final TgiCodec INSTANCE = new TgiCodec();
  private static final String FORMAT = "TGI";

  private TgiCodec() {}

  @Override
  public String path(GenerationRequest request) {
    return request.mode() == GenerationRequest.Mode.CHAT
        ? OpenAiCodec.INSTANCE.path(request)
        : "/generate_stream";
  }

  @Override
  public String body(GenerationRequest request) {
    if (request.mode() == GenerationRequest.Mode.CHAT) {
      return OpenAiCodec.INSTANCE.body(request);
    }
    ObjectNode body = Json.object();
    body.put("inputs", request.prompt());
    ObjectNode parameters = body.putObject("parameters");
    parameters.put("max_new_tokens", request.maxTokens());
    parameters.put("details", true);
    return Json.write(body);
  }

  @Override
  public StreamFraming framing(GenerationRequest request) {
    return StreamFraming.SERVER_SENT_EVENTS;
  }

  @Override
  public StreamChunk parse(GenerationRequest request, String line) {
    if (request.mode() == GenerationRequest.Mode.CHAT) {
      return OpenAiCodec.INSTANCE.parse(request, line);
    }
    String data = SseLine.data(line);
    if (data == null || data.isBlank()) {
      return StreamChunk.NOTHING;
    }
    JsonNode event = Json.readObject(data, FORMAT);
    String error = Json.text(event, "error");
    if (error != null) {
      return StreamChunk.error(error);
    }
    JsonNode token = event.get("token");
    if (token == null || !token.isObject()) {
      throw new MalformedChunkException(FORMAT + " stream event has no token: " + Json.abbreviate(data));
    }
    boolean special = token.path("special").asBoolean(false);
    String text = special ? "" : Json.text(token, "text");
    boolean done = Json.text(event, "generated_text") != null;
    TokenUsage usage = null;
    JsonNode details = event.get("details");
    if (details != null && details.isObject()) {
      usage = new TokenUsage(Json.integer(details, "input_length"), Json.integer(details, "generated_tokens"));
    }
    return new StreamChunk(text == null ? "" : text, usage, done, null);
  }
}
