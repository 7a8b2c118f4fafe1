package dev.svc.engines.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * OpenAI-compatible streaming ({@code /v1/completions}, {@code /v1/chat/completions}), spoken by
 * vLLM and llama.cpp: server-sent events whose data is a JSON chunk, then {@code [DONE]}. Usage is
 * requested with {@code stream_options.include_usage} and arrives in a chunk of its own. The prompt
 * tokens an engine took from its prompt cache come from {@code usage.prompt_tokens_details.cached_tokens}
 * (vLLM, llama.cpp), else from llama.cpp's {@code timings.cache_n}.
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
    Timings timings = null;
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
    return new StreamChunk(text, withCache(usage, timings), false, null, timings == null ? null : timings.server());
  }

  /**
   * The usage, its cached prompt tokens taken from llama.cpp's timings where {@code usage} does not
   * give them (older llama.cpp builds send only {@code cache_n}); with timings alone, a usage of the
   * prompt (cached and computed tokens) and its cached part.
   */
  private static TokenUsage withCache(TokenUsage usage, Timings timings) {
    if (timings == null || timings.cached() == null || (usage != null && usage.cachedPromptTokens() != null)) {
      return usage;
    }
    if (usage != null) {
      return new TokenUsage(usage.promptTokens(), usage.completionTokens(), timings.cached());
    }
    Integer prompt = timings.computed() == null ? null : timings.computed() + timings.cached();
    return new TokenUsage(prompt, null, timings.cached());
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

  /**
   * The usage object's token counts (each null when absent or not a non-negative integer), with
   * {@code prompt_tokens_details.cached_tokens}; null when it is not an object.
   */
  private static TokenUsage usage(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      parser.skipChildren();
      return null;
    }
    Integer prompt = null;
    Integer completion = null;
    Integer cached = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      parser.nextToken();
      switch (field) {
        case "prompt_tokens" -> prompt = count(parser);
        case "completion_tokens" -> completion = count(parser);
        case "prompt_tokens_details" -> cached = cachedTokens(parser);
        default -> { }
      }
      parser.skipChildren();
    }
    return new TokenUsage(prompt, completion, cached);
  }

  /** {@code cached_tokens} of the details object the parser is at; null when absent or not a count (vLLM sends null details unless asked). */
  private static Integer cachedTokens(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      return null;
    }
    Integer cached = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      boolean match = parser.currentName().equals("cached_tokens");
      parser.nextToken();
      if (match) {
        cached = count(parser);
      }
      parser.skipChildren();
    }
    return cached;
  }

  /** The value the parser is at as a token count: a non-negative integer that fits an int, otherwise null. */
  private static Integer count(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT || parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      return null;
    }
    long value = parser.getLongValue();
    return value < 0 || value > Integer.MAX_VALUE ? null : (int) value;
  }

  /**
   * llama.cpp's {@code timings}: the server's account (prompt_ms, predicted_ms, predicted_n, when
   * all three are numbers) and the prompt's tokens, computed ({@code prompt_n}) and taken from its
   * cache ({@code cache_n}), each null when absent.
   */
  private record Timings(ServerTimings server, Integer computed, Integer cached) {
  }

  private static Timings timings(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      parser.skipChildren();
      return null;
    }
    Number prompt = null;
    Number predicted = null;
    Number tokens = null;
    Integer computed = null;
    Integer cached = null;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      Number number = value.isNumeric() ? parser.getNumberValue() : null;
      switch (field) {
        case "prompt_ms" -> prompt = number;
        case "predicted_ms" -> predicted = number;
        case "predicted_n" -> tokens = number;
        case "prompt_n" -> computed = count(parser);
        case "cache_n" -> cached = count(parser);
        default -> { }
      }
      parser.skipChildren();
    }
    ServerTimings server = prompt == null || predicted == null || tokens == null ? null
        : new ServerTimings(prompt.doubleValue(), predicted.doubleValue(), tokens.intValue());
    return new Timings(server, computed, cached);
  }
}
