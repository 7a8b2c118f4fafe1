package dev.svc.core;

import java.util.Locale;
import java.util.Optional;

/** CPU architectures, normalised as the protocol requires: x86_64/amd64 → amd64, aarch64/arm64 → arm64. */
public enum CpuArch {
  AMD64("amd64"),
  ARM64("arm64");

  private final String wireName;

  CpuArch(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The display name the dashboard uses (ARM64 / x86_64). */
  public String displayName() {
    return this == AMD64 ? "x86_64" : "ARM64";
  }

  public static Optional<CpuArch> parse(String value) {
    if (value == null) {
      return Optional.empty();
    }
    switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "amd64":
      case "x86_64":
      case "x86-64":
      case "x64":
        return Optional.of(AMD64);
      case "arm64":
      case "aarch64":
      case "armv8":
        return Optional.of(ARM64);
      default:
        return Optional.empty();
    }
  }

  /** The normalised wire name, or the trimmed lower-case input when it is not a known architecture. */
  public static String normalize(String value) {
    if (value == null || value.isBlank()) {
      return "";
    }
    return parse(value).map(CpuArch::wireName).orElse(value.trim().toLowerCase(Locale.ROOT));
  }

  public static CpuArch ofThisMachine() {
    return parse(System.getProperty("os.arch")).orElse(AMD64);
  }
}
