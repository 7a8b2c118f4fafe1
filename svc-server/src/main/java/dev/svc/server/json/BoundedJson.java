package dev.svc.server.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

/**
 * The one way JSON from outside (request bodies, metrics.json files, stored columns) becomes a
 * {@link JsonObject}: nesting is bounded at {@link #MAX_DEPTH}, and the document is built without
 * recursion. Every reader after it may then recurse freely: Vert.x's copy and encoding recurse a
 * few stack frames per level, and a result nested 850 levels deep overflowed the stack of every
 * request that listed it.
 */
public final class BoundedJson {

  /**
   * The deepest nesting accepted (the document itself is level 1). A metrics.json is about 7 levels
   * deep (results → entry → metrics → sweep → step → ttft_ms) and an agent's report adds one.
   */
  public static final int MAX_DEPTH = 64;

  private static final JsonFactory FACTORY = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
      .build();

  /** A document nested deeper than {@link #MAX_DEPTH}; its message names the limit. */
  public static final class TooDeepException extends DecodeException {
    private static final long serialVersionUID = 1L;

    TooDeepException() {
      super("JSON nested deeper than " + MAX_DEPTH + " levels is not accepted");
    }
  }

  private BoundedJson() {
  }

  /** A JSON value: a {@link JsonObject}, {@link JsonArray}, string, number, boolean or null. */
  public static Object decode(Buffer buffer) {
    return decode(buffer.getBytes());
  }

  public static Object decode(String text) {
    try (JsonParser parser = FACTORY.createParser(text)) {
      return read(parser);
    } catch (StreamConstraintsException e) {
      throw tooDeepOr(e);
    } catch (IOException e) {
      throw new DecodeException("Failed to decode: " + e.getMessage());
    }
  }

  public static Object decode(byte[] bytes) {
    try (JsonParser parser = FACTORY.createParser(bytes)) {
      return read(parser);
    } catch (StreamConstraintsException e) {
      throw tooDeepOr(e);
    } catch (IOException e) {
      throw new DecodeException("Failed to decode: " + e.getMessage());
    }
  }

  /** The text as a JSON object, or null when it is empty, not JSON, not an object or nested too deep. */
  public static JsonObject objectOrNull(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return decode(text) instanceof JsonObject object ? object : null;
    } catch (DecodeException e) {
      return null;
    }
  }

  /** Whether an in-memory value nests no deeper than {@link #MAX_DEPTH} (walked without recursion). */
  public static boolean withinLimit(Object value) {
    Deque<Iterator<?>> open = new ArrayDeque<>();
    Iterator<?> children = children(value);
    if (children == null) {
      return true;
    }
    open.push(children);
    while (!open.isEmpty()) {
      if (open.size() > MAX_DEPTH) {
        return false;
      }
      Iterator<?> top = open.peek();
      if (!top.hasNext()) {
        open.pop();
        continue;
      }
      Iterator<?> next = children(top.next());
      if (next != null) {
        open.push(next);
      }
    }
    return true;
  }

  private static Iterator<?> children(Object value) {
    if (value instanceof JsonObject o) {
      return o.getMap().values().iterator();
    }
    if (value instanceof Map<?, ?> m) {
      return m.values().iterator();
    }
    if (value instanceof JsonArray a) {
      return a.getList().iterator();
    }
    if (value instanceof Iterable<?> l) {
      return l.iterator();
    }
    return null;
  }

  private static DecodeException tooDeepOr(StreamConstraintsException e) {
    String message = String.valueOf(e.getMessage());
    return message.contains("nesting depth") || message.contains("Nesting depth")
        ? new TooDeepException() : new DecodeException("Failed to decode: " + message);
  }

  /** Builds the value with an explicit stack of open containers: the Java stack stays flat at any depth. */
  private static Object read(JsonParser parser) throws IOException {
    JsonToken token = parser.nextToken();
    if (token == null) {
      throw new DecodeException("Failed to decode: no content");
    }
    Deque<Object> open = new ArrayDeque<>();
    Deque<String> names = new ArrayDeque<>();
    Object root = null;
    boolean done = false;
    while (!done) {
      Object value;
      boolean complete = true;
      switch (token) {
        case START_OBJECT -> {
          open.push(new JsonObject());
          complete = false;
          value = null;
        }
        case START_ARRAY -> {
          open.push(new JsonArray());
          complete = false;
          value = null;
        }
        case END_OBJECT, END_ARRAY -> value = open.pop();
        case FIELD_NAME -> {
          names.push(parser.currentName());
          complete = false;
          value = null;
        }
        case VALUE_STRING -> value = parser.getText();
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> value = parser.getNumberValue();
        case VALUE_TRUE -> value = Boolean.TRUE;
        case VALUE_FALSE -> value = Boolean.FALSE;
        case VALUE_NULL -> value = null;
        default -> throw new DecodeException("Failed to decode: unexpected token " + token);
      }
      if (complete) {
        Object parent = open.peek();
        if (parent instanceof JsonObject object) {
          object.put(names.pop(), value);
        } else if (parent instanceof JsonArray array) {
          array.add(value);
        } else {
          root = value;
          done = true;
        }
      }
      if (!done) {
        token = parser.nextToken();
        if (token == null) {
          throw new DecodeException("Failed to decode: unexpected end of input");
        }
      }
    }
    if (parser.nextToken() != null) {
      throw new DecodeException("Failed to decode: unexpected trailing token");
    }
    return root;
  }
}
