package dev.svc.engines;

import dev.svc.core.WireNames;

import java.util.Locale;
import java.util.Optional;

/** The request protocol a benchmark client speaks to an engine. */
public enum RequestApi {
  /** OpenAI-compatible {@code /v1/completions} and {@code /v1/chat/completions}. */
  OPENAI,
  /** TGI's own {@code /generate} and {@code /generate_stream}. */
  TGI_NATIVE,
  /** Ollama's own {@code /api/generate} and {@code /api/chat}. */
  OLLAMA_NATIVE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<RequestApi> parse(String value) {
    return WireNames.parse(values(), value, RequestApi::wireName);
  }
}
