package dev.svc.engines.codec;

import java.util.Objects;

/**
 * One streamed generation a benchmark client asks an engine for.
 *
 * @param mode a plain completion of the prompt, or a chat turn with the prompt as the user message
 * @param model the model name the engine serves (OpenAI {@code model}, Ollama {@code model}; TGI
 *     serves one model and ignores it)
 * @param prompt the prompt text
 * @param maxTokens the most tokens to generate
 */
public record GenerationRequest(Mode mode, String model, String prompt, int maxTokens) {

  /** Which kind of request: a completion or a chat turn. */
  public enum Mode {
    COMPLETION,
    CHAT
  }

  public GenerationRequest {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(prompt, "prompt");
    if (maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens must be at least 1, was " + maxTokens + ".");
    }
  }

  public static GenerationRequest completion(String model, String prompt, int maxTokens) {
    return new GenerationRequest(Mode.COMPLETION, model, prompt, maxTokens);
  }

  public static GenerationRequest chat(String model, String prompt, int maxTokens) {
    return new GenerationRequest(Mode.CHAT, model, prompt, maxTokens);
  }
}
