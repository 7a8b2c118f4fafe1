package dev.svc.engines.codec;

/**
 * Token counts as the engine reported them; a count the engine did not give is null.
 *
 * @param promptTokens tokens in the prompt, those served from the engine's prompt cache included
 * @param completionTokens tokens generated
 * @param cachedPromptTokens tokens of the prompt the engine took from its prompt cache instead of
 *     computing them; null when the engine does not say (which is not the same as 0)
 */
public record TokenUsage(Integer promptTokens, Integer completionTokens, Integer cachedPromptTokens) {

  /** Counts without a word on the prompt cache. */
  public TokenUsage(Integer promptTokens, Integer completionTokens) {
    this(promptTokens, completionTokens, null);
  }
}
