package dev.svc.engines.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/** The codecs' one JSON mapper and the small reads they share. */
final class Json {

  static final ObjectMapper MAPPER = new ObjectMapper();
  /** Reads trees without resolving the target type on every call, as {@code MAPPER.readTree} does (a line per streamed token). */
  private static final ObjectReader TREES = MAPPER.readerFor(JsonNode.class);

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /**
   * A request body with the model and the user's turn, as OpenAI and Ollama both name them: a
   * one-message {@code messages} list for chat, {@code prompt} otherwise.
   */
  static ObjectNode prompted(GenerationRequest request) {
    ObjectNode body = object();
    body.put("model", request.model());
    if (request.mode() == GenerationRequest.Mode.CHAT) {
      ObjectNode message = body.putArray("messages").addObject();
      message.put("role", "user");
      message.put("content", request.prompt());
    } else {
      body.put("prompt", request.prompt());
    }
    return body;
  }

  static String write(ObjectNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("A request body could not be written as JSON.", e);
    }
  }

  /** The line's JSON object; anything else is a malformed chunk naming the engine format. */
  static JsonNode readObject(String json, String format) {
    JsonNode node;
    try {
      node = TREES.readTree(json);
    } catch (JsonProcessingException e) {
      throw new MalformedChunkException(
          format + " stream line is not JSON: " + abbreviate(json), e);
    }
    if (node == null || !node.isObject()) {
      throw new MalformedChunkException(format + " stream line is not a JSON object: " + abbreviate(json));
    }
    return node;
  }

  /** A streaming parser of {@code json}. */
  static JsonParser parser(String json) throws IOException {
    return MAPPER.getFactory().createParser(json);
  }

  /** The value the parser is at, as a tree (null for JSON null). */
  static JsonNode tree(JsonParser parser) throws IOException {
    return TREES.readTree(parser);
  }

  /** The integer at the field, or null when it is absent or not a number. */
  static Integer integer(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value != null && value.isIntegralNumber() ? value.intValue() : null;
  }

  /** The text at the field, or null when it is absent, null or not a string. */
  static String text(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value != null && value.isTextual() ? value.textValue() : null;
  }

  static String abbreviate(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }
}
