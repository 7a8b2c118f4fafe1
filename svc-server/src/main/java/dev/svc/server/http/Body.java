package dev.svc.server.http;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
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
    return wire(() -> Fields.requireString(json, field));
  }

  public String optString(String field, String fallback) {
    return wire(() -> Fields.optString(json, field, fallback));
  }

  public Integer optInt(String field, Integer fallback, int min, int max) {
    return wire(() -> Fields.optInt(json, field, fallback, min, max));
  }

  public Double optNumber(String field, Double fallback) {
    return wire(() -> Fields.optNumber(json, field, fallback));
  }

  public boolean optBool(String field, boolean fallback) {
    return wire(() -> Fields.optBoolean(json, field, fallback));
  }

  public JsonObject optObject(String field) {
    return wire(() -> Fields.optObject(json, field));
  }

  public JsonArray optArray(String field) {
    return wire(() -> Fields.optArray(json, field));
  }

  /** A list of strings, or null when absent. */
  public List<String> optStringList(String field) {
    return wire(() -> Fields.optStringList(json, field));
  }

  /** A read of the protocol's field readers, its refusal as the API's 400. */
  static <T> T wire(java.util.function.Supplier<T> read) {
    try {
      return read.get();
    } catch (BadMessage e) {
      throw ApiError.badRequest(e.getMessage());
    }
  }

}
