package dev.svc.engines;

import dev.svc.core.WireNames;

import java.util.Locale;
import java.util.Optional;

/** What an engine's health endpoint must answer before the engine counts as ready. */
public enum HealthSuccess {
  /** Any HTTP 200 means ready. */
  STATUS_200,
  /** HTTP 200 with a non-empty list of models in the body (Ollama's {@code /api/tags}). */
  STATUS_200_WITH_MODEL_LIST;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<HealthSuccess> parse(String value) {
    return WireNames.parse(values(), value, HealthSuccess::wireName);
  }
}
