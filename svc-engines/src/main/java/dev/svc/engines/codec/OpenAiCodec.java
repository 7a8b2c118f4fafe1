package dev.svc.engines.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

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

  /**
   * Reads the chunk with Jackson's streaming parser, field by field, not as a tree: this runs once
   * per streamed token, and a tree (a map per object) cost the client most of its allocations.
   * Unknown fields are skipped; where a field repeats, the last one counts, as in a JSON object.
   */
  @Override
  public StreamChunk parse(GenerationRequest request, String line) {
    String data = SseLine.data(line);
    if (data == null || data.isBlank()) {
      return StreamChunk.NOTHING;
    }
    if (data.strip().equals("[DONE]")) {
      return new StreamChunk("", null, true, null);
    }
    try (JsonParser parser = Json.parser(data)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new MalformedChunkException(FORMAT + " stream line is not a JSON object: " + Json.abbreviate(data));
      }
      return chunk(parser, request.mode() == GenerationRequest.Mode.CHAT);
    } catch (IOException e) {
      throw new MalformedChunkException(FORMAT + " stream line is not JSON: " + Json.abbreviate(data), e);
    }
  }

  /** The fields of the chunk object whose start the parser is at. */
  private static StreamChunk chunk(JsonParser parser, boolean chat) throws IOException {
    String text = "";
    JsonNode error = null;
    TokenUsage usage = null;
    ServerTimings timings = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      parser.nextToken();
      switch (field) {
        case "error" -> error = Json.tree(parser);
        case "choices" -> text = firstChoiceText(parser, chat);
        case "usage" -> usage = usage(parser);
        case "timings" -> timings = timings(parser);
        default -> parser.skipChildren();
      }
    }
    if (error != null && !error.isNull()) {
      String message = error.isTextual() ? error.textValue() : Json.text(error, "message");
      return StreamChunk.error(message != null ? message : error.toString());
    }
    return new StreamChunk(text, usage, false, null, timings);
  }

  /** The text of the first choice ({@code delta.content} in chat, {@code text} otherwise); empty when it has none. */
  private static String firstChoiceText(JsonParser parser, boolean chat) throws IOException {
    if (parser.currentToken() != JsonToken.START_ARRAY) {
      parser.skipChildren();
      return "";
    }
    String text = null;
    boolean first = true;
    for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY && t != null; t = parser.nextToken()) {
      if (first && parser.currentToken() == JsonToken.START_OBJECT) {
        text = chat ? stringIn(parser, "delta", "content") : stringIn(parser, "text", null);
      } else {
        parser.skipChildren();
      }
      first = false;
    }
    return text == null ? "" : text;
  }

  /**
   * In the object the parser is at: the string at {@code field}, or with {@code inner}, the string at
   * {@code field.inner}; null when absent or not a string. Leaves the parser at the object's end.
   */
  private static String stringIn(JsonParser parser, String field, String inner) throws IOException {
    String out = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      boolean match = field.equals(parser.currentName());
      JsonToken value = parser.nextToken();
      if (match && inner == null) {
        out = value == JsonToken.VALUE_STRING ? parser.getText() : null;
      } else if (match && value == JsonToken.START_OBJECT) {
        out = stringIn(parser, inner, null);
      } else {
        out = match ? null : out;
        parser.skipChildren();
      }
    }
    return out;
  }

  /** The usage object's token counts (each null when absent or not an integer); null when it is not an object. */
  private static TokenUsage usage(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      parser.skipChildren();
      return null;
    }
    Integer prompt = null;
    Integer completion = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      Integer number = value == JsonToken.VALUE_NUMBER_INT ? parser.getNumberValue().intValue() : null;
      parser.skipChildren();
      if (field.equals("prompt_tokens")) {
        prompt = number;
      } else if (field.equals("completion_tokens")) {
        completion = number;
      }
    }
    return new TokenUsage(prompt, completion);
  }

  /** llama.cpp's {@code timings} (prompt_ms, predicted_ms, predicted_n), when all three are numbers. */
  private static ServerTimings timings(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      parser.skipChildren();
      return null;
    }
    Number prompt = null;
    Number predicted = null;
    Number tokens = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      Number number = value.isNumeric() ? parser.getNumberValue() : null;
      parser.skipChildren();
      switch (field) {
        case "prompt_ms" -> prompt = number;
        case "predicted_ms" -> predicted = number;
        case "predicted_n" -> tokens = number;
        default -> { }
      }
    }
    return prompt == null || predicted == null || tokens == null ? null
        : new ServerTimings(prompt.doubleValue(), predicted.doubleValue(), tokens.intValue());
  }
}
