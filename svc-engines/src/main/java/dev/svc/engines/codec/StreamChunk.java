package dev.svc.engines.codec;

import java.util.Objects;

/**
 * What one line of an engine's response stream carried.
 *
 * @param text generated text in this line; empty when it carried none
 * @param usage token counts, when this line reported them; otherwise null
 * @param done whether this line ends the stream (OpenAI {@code [DONE]}, TGI's final event with the
 *     generated text, Ollama's {@code "done": true})
 * @param error the engine's error message, when the line reported one; otherwise null
 * @param timings the engine's own timings of the request, when this line reported them; otherwise null
 */
public record StreamChunk(String text, TokenUsage usage, boolean done, String error, ServerTimings timings) {

  /** A line that carries nothing: blank lines, SSE comments and non-data fields. */
  public static final StreamChunk NOTHING = new StreamChunk("", null, false, null);

  public StreamChunk {
    Objects.requireNonNull(text, "text");
  }

  /** A line without server timings. */
  public StreamChunk(String text, TokenUsage usage, boolean done, String error) {
    this(text, usage, done, error, null);
  }

  static StreamChunk text(String text) {
    return new StreamChunk(text == null ? "" : text, null, false, null);
  }

  static StreamChunk error(String message) {
    return new StreamChunk("", null, true, message);
  }

  public boolean hasText() {
    return !text.isEmpty();
  }
}
