package dev.svc.core.domain;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The six per-agent settings, their defaults and their validation. Values travel as strings in
 * heartbeat responses because the old agent parses them that way.
 */
public final class AgentSettings {

  public static final String MODEL_STORAGE_DIR = "model_storage_dir";
  public static final String MODEL_SHARE_SOURCE = "model_share_source";
  public static final String MODEL_SHARE_MOUNT = "model_share_mount";
  public static final String AUTO_CLEANUP = "auto_cleanup";
  public static final String HEARTBEAT_INTERVAL_S = "heartbeat_interval_s";
  public static final String KITT_IMAGE = "kitt_image";

  public static final List<String> KEYS = List.of(
      MODEL_STORAGE_DIR, MODEL_SHARE_SOURCE, MODEL_SHARE_MOUNT, AUTO_CLEANUP, HEARTBEAT_INTERVAL_S, KITT_IMAGE);

  public static final int MIN_HEARTBEAT_S = 10;
  public static final int MAX_HEARTBEAT_S = 300;
  public static final int DEFAULT_HEARTBEAT_S = 30;

  private AgentSettings() {
  }

  public static Map<String, String> defaults() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put(MODEL_STORAGE_DIR, "~/.svc/models");
    d.put(MODEL_SHARE_SOURCE, "");
    d.put(MODEL_SHARE_MOUNT, "");
    d.put(AUTO_CLEANUP, "true");
    d.put(HEARTBEAT_INTERVAL_S, String.valueOf(DEFAULT_HEARTBEAT_S));
    d.put(KITT_IMAGE, "");
    return d;
  }

  /** Defaults overlaid with the stored values, every key present, in the canonical order. */
  public static Map<String, String> effective(Map<String, String> stored) {
    Map<String, String> result = defaults();
    stored.forEach((k, v) -> {
      if (result.containsKey(k) && v != null) {
        result.put(k, v);
      }
    });
    return result;
  }

  /** The heartbeat interval in seconds of effective settings; the default when it is missing or unreadable. */
  public static int heartbeatIntervalS(Map<String, String> settings) {
    String value = settings.get(HEARTBEAT_INTERVAL_S);
    if (value == null || !value.matches("\\d{1,9}")) {
      return DEFAULT_HEARTBEAT_S;
    }
    // the server accepts only this range; any other value (0 would beat every millisecond) is held to it
    return Math.min(MAX_HEARTBEAT_S, Math.max(MIN_HEARTBEAT_S, Integer.parseInt(value)));
  }

  /**
   * Validates one value given through the API (JSON string, number or boolean) and returns its
   * canonical string form, or the error sentence.
   */
  public static Validated validate(String key, Object value) {
    if (!KEYS.contains(key)) {
      return Validated.error("Unknown setting '" + key + "'; known settings: " + String.join(", ", KEYS));
    }
    if (value == null) {
      return Validated.error("Setting '" + key + "' must not be null");
    }
    switch (key) {
      case HEARTBEAT_INTERVAL_S:
        return parseInteger(value)
            .filter(i -> i >= MIN_HEARTBEAT_S && i <= MAX_HEARTBEAT_S)
            .map(i -> Validated.ok(String.valueOf(i)))
            .orElse(Validated.error("heartbeat_interval_s must be an integer from "
                + MIN_HEARTBEAT_S + " to " + MAX_HEARTBEAT_S));
      case AUTO_CLEANUP:
        if (value instanceof Boolean) {
          return Validated.ok(value.toString());
        }
        if (value instanceof String && (value.equals("true") || value.equals("false"))) {
          return Validated.ok((String) value);
        }
        return Validated.error("auto_cleanup must be true or false");
      case MODEL_SHARE_SOURCE:
        if (!(value instanceof String)) {
          return Validated.error("model_share_source must be a string");
        }
        String source = ((String) value).trim();
        String sourceProblem = dev.svc.core.TextRule.fieldProblem(key, source, false);
        if (sourceProblem != null) {
          return Validated.error(sourceProblem);
        }
        if (!source.isEmpty() && !source.matches("[^\\s:/]+:/\\S*")) {
          return Validated.error("model_share_source must have the form host:/path");
        }
        return Validated.ok(source);
      default:
        if (!(value instanceof String)) {
          return Validated.error(key + " must be a string");
        }
        String s = ((String) value).trim();
        if (s.length() > 4096) {
          return Validated.error(key + " must be at most 4096 characters");
        }
        String problem = dev.svc.core.TextRule.fieldProblem(key, s, false);
        if (problem != null) {
          return Validated.error(problem);
        }
        if (key.equals(KITT_IMAGE) && !s.isEmpty() && !ImageReference.isValid(s)) {
          return Validated.error("kitt_image must be a container image reference such as"
              + " registry.example.com/svc/kitt:1.6 (lowercase path, optional tag and digest), or empty for the default");
        }
        if ((key.equals(MODEL_STORAGE_DIR) || key.equals(MODEL_SHARE_MOUNT)) && !s.isEmpty()
            && !(s.startsWith("/") || s.startsWith("~"))) {
          return Validated.error(key + " must be an absolute path");
        }
        return Validated.ok(s);
    }
  }

  private static Optional<Integer> parseInteger(Object value) {
    if (value instanceof Integer || value instanceof Long) {
      long l = ((Number) value).longValue();
      return l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE ? Optional.of((int) l) : Optional.empty();
    }
    if (value instanceof String && ((String) value).matches("-?\\d{1,9}")) {
      return Optional.of(Integer.parseInt((String) value));
    }
    return Optional.empty();
  }

  /** A validated setting value: either the canonical string or the error sentence. */
  public static final class Validated {
    private final String value;
    private final String error;

    private Validated(String value, String error) {
      this.value = value;
      this.error = error;
    }

    static Validated ok(String value) {
      return new Validated(value, null);
    }

    static Validated error(String error) {
      return new Validated(null, error);
    }

    public boolean isOk() {
      return error == null;
    }

    public String value() {
      return value;
    }

    public String error() {
      return error;
    }
  }
}
