package dev.svc.core.protocol;

import io.vertx.core.json.JsonObject;
import java.util.Optional;

/**
 * An {@code /api/} error answer's body: {@code {"error": sentence}}, written by the server for every refusal
 * and read by its clients (the agent, its command line, the fleet simulator) to say why.
 */
public record ErrorBody(String error) {

  public JsonObject toJson() {
    return new JsonObject().put("error", error);
  }

  /** The sentence of an error body; empty when the body is not one (not JSON, or no string {@code error}). */
  public static Optional<String> sentence(String body) {
    if (body == null || body.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(Fields.optString(new JsonObject(body), "error", null));
    } catch (RuntimeException notAnError) {
      return Optional.empty();
    }
  }
}
