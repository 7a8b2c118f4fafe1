package dev.svc.engines;

import dev.svc.core.WireNames;

import java.util.Optional;

/** The on-disk formats a model can come in, named as they are on the wire and in engines.yaml. */
public enum ModelFormat {
  GGUF("gguf"),
  SAFETENSORS("safetensors"),
  PYTORCH("pytorch");

  private final String wireName;

  ModelFormat(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The format with this wire name (case-insensitive), or empty when there is none. */
  public static Optional<ModelFormat> parse(String value) {
    return WireNames.parse(values(), value, ModelFormat::wireName);
  }

  @Override
  public String toString() {
    return wireName;
  }
}
