package dev.svc.bench.client;

import dev.svc.engines.codec.ServerTimings;
import io.vertx.core.json.JsonObject;

/** Reads an engine's streamed lines, or a whole (non-streaming) response. */
public interface StreamDecoder {

  /** One line of the stream (without its newline); null when the line carries nothing (blank, comment, keepalive). */
  Chunk line(String line);

  /** A non-streaming response body. */
  Chunk whole(JsonObject body);

  /**
   * What one line said: generated {@code text} (may be empty), the server's token counts when it
   * gave them ({@code -1} otherwise: the prompt's, the answer's, and the prompt's tokens it took
   * from its prompt cache), whether the stream is finished, the engine's error and its own timings
   * of the request, if any.
   */
  record Chunk(String text, int promptTokens, int completionTokens, int cachedPromptTokens, boolean done, String error,
      ServerTimings timings) {
    public boolean hasUsage() {
      return completionTokens >= 0;
    }
  }
}
