package dev.svc.engines.codec;

/**
 * Token counts as the engine reported them; a count the engine did not give is null.
 *
 * @param promptTokens tokens in the prompt
 * @param completionTokens tokens generated
 */
public record TokenUsage(Integer promptTokens, Integer completionTokens) {}
