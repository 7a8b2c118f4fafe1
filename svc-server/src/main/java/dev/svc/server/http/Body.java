package dev.svc.server.http;

import dev.svc.server.json.BoundedJson;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON request body with typed accessors that fail with the protocol's 400 sentences. Every body
 * of the API is decoded here, so nesting is bounded ({@link BoundedJson#MAX_DEPTH}) for all of them.
 */
public final class Body {

  private final JsonObject json;

  private Body(JsonObject json) {
    this.json = json;
  }

  /** The body as an object; anything else is 400 "Invalid JSON body". */
  public static Body of(RoutingContext ctx) {
    return parse(ctx.body().buffer(), false);
  }

  /** As {@link #of}, but an empty body counts as {@code {}} (heartbeats). */
  public static Body orEmpty(RoutingContext ctx) {
    return parse(ctx.body().buffer(), true);
  }

  static Body parse(Buffer buffer, boolean emptyIsObject) {
    if (buffer == null || buffer.length() == 0 || buffer.toString().isBlank()) {
      if (emptyIsObject) {
        return new Body(new JsonObject());
      }
      throw ApiError.badRequest("Invalid JSON body");
    }
    Object value;
    try {
      value = BoundedJson.decode(buffer);
    } catch (BoundedJson.TooDeepException e) {
      throw ApiError.badRequest("Invalid JSON body: nested deeper than " + BoundedJson.MAX_DEPTH + " levels");
    } catch (DecodeException | IllegalStateException e) {
      throw ApiError.badRequest("Invalid JSON body");
    }
    if (!(value instanceof JsonObject)) {
      throw ApiError.badRequest("Invalid JSON body");
    }
    return new Body((JsonObject) value);
  }

  public JsonObject json() {
    return json;
  }

  public boolean has(String field) {
    return json.containsKey(field) && json.getValue(field) != null;
  }

  public String requireString(String field) {
    String value = optString(field, null);
    if (value == null || value.isBlank()) {
      throw ApiError.badRequest("Field '" + field + "' is required");
    }
    return value.trim();
  }

  public String optString(String field, String fallback) {
    Object value = json.getValue(field);
    if (value == null) {
      return fallback;
    }
    if (!(value instanceof String)) {
      throw ApiError.badRequest("Field '" + field + "' must be a string");
    }
    String s = (String) value;
    if (s.indexOf('\0') >= 0) {
      throw ApiError.badRequest("Field '" + field + "' must not contain NUL characters");
    }
    return s;
  }

  public Integer optInt(String field, Integer fallback, int min, int max) {
    Object value = json.getValue(field);
    if (value == null) {
      return fallback;
    }
    long l;
    if (value instanceof Integer || value instanceof Long) {
      l = ((Number) value).longValue();
    } else if (value instanceof Number && ((Number) value).doubleValue() == Math.rint(((Number) value).doubleValue())) {
      l = ((Number) value).longValue();
    } else if (value instanceof String && ((String) value).trim().matches("-?\\d{1,12}")) {
      l = Long.parseLong(((String) value).trim());
    } else {
      throw ApiError.badRequest("Field '" + field + "' must be an integer");
    }
    if (l < min || l > max) {
      throw ApiError.badRequest("Field '" + field + "' must be between " + min + " and " + max);
    }
    return (int) l;
  }

  public Double optNumber(String field, Double fallback) {
    Object value = json.getValue(field);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Number) {
      double d = ((Number) value).doubleValue();
      if (Double.isFinite(d)) {
        return d;
      }
    }
    if (value instanceof String) {
      try {
        double d = Double.parseDouble(((String) value).trim());
        if (Double.isFinite(d)) {
          return d;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    throw ApiError.badRequest("Field '" + field + "' must be a number");
  }

  public boolean optBool(String field, boolean fallback) {
    Object value = json.getValue(field);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Boolean) {
      return (Boolean) value;
    }
    if ("true".equals(value) || "false".equals(value)) {
      return Boolean.parseBoolean((String) value);
    }
    throw ApiError.badRequest("Field '" + field + "' must be true or false");
  }

  public JsonObject optObject(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonObject)) {
      throw ApiError.badRequest("Field '" + field + "' must be an object");
    }
    return (JsonObject) value;
  }

  public JsonArray optArray(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray)) {
      throw ApiError.badRequest("Field '" + field + "' must be an array");
    }
    return (JsonArray) value;
  }

  /** A list of strings, or null when absent. */
  public List<String> optStringList(String field) {
    JsonArray array = optArray(field);
    if (array == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (Object o : array) {
      if (!(o instanceof String)) {
        throw ApiError.badRequest("Field '" + field + "' must be a list of strings");
      }
      out.add((String) o);
    }
    return out;
  }
}
