package dev.svc.engines.codec;

/** How an engine frames its streamed response body into lines. */
public enum StreamFraming {
  /** Server-sent events: {@code data:} lines separated by blank lines (OpenAI, TGI). */
  SERVER_SENT_EVENTS,
  /** One JSON object per line (Ollama). */
  JSON_LINES
}
