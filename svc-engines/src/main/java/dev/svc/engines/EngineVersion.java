package dev.svc.engines;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a running engine says its version is, asked over HTTP once it is healthy: exactly one of
 * {@code version} (the engine's own words) and {@code reason} (why there is none) is set. Never
 * guessed from an image tag or a binary's name: those can lie about what runs.
 */
public record EngineVersion(String version, String reason) {

  /** Where each catalog engine answers with its version, and the fields that hold it. */
  private static final Map<String, Endpoint> ENDPOINTS = Map.of(
      "llama_cpp", new Endpoint("/props", "build_info", null),
      "vllm", new Endpoint("/version", "version", null),
      "tgi", new Endpoint("/info", "version", "sha"),
      "ollama", new Endpoint("/api/version", "version", null));

  private static final ObjectMapper JSON = new ObjectMapper();

  private record Endpoint(String path, String versionField, String shaField) {}

  public EngineVersion {
    if ((version == null) == (reason == null)) {
      throw new IllegalArgumentException("An engine version has a version or a reason, not both or neither");
    }
  }

  public static EngineVersion known(String version) {
    return new EngineVersion(Objects.requireNonNull(version), null);
  }

  public static EngineVersion unknown(String reason) {
    return new EngineVersion(null, Objects.requireNonNull(reason));
  }

  /** The path (under the engine's base path) that answers with the version of {@code engine}; empty for engines svc cannot ask. */
  public static Optional<String> path(String engine) {
    return Optional.ofNullable(ENDPOINTS.get(engine)).map(Endpoint::path);
  }

  /** Why {@code engine} has no version: svc does not know where to ask it. */
  public static EngineVersion notAskable(String engine) {
    return unknown("svc does not know how to ask the engine " + engine + " for its version");
  }

  /**
   * The version in the engine's answer to {@link #path(String)}: TGI's {@code sha}, when it gives
   * one, follows its version in parentheses. A reason says what the answer lacked (e.g.
   * {@code answered HTTP 404}); the caller names the request before it.
   */
  public static EngineVersion parse(String engine, int status, String body) {
    Endpoint endpoint = ENDPOINTS.get(engine);
    if (endpoint == null) {
      return notAskable(engine);
    }
    if (status != 200) {
      return unknown("answered HTTP " + status);
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      return unknown("did not answer with JSON");
    }
    String version = text(root, endpoint.versionField());
    if (version == null) {
      return unknown("gave no " + endpoint.versionField());
    }
    String sha = endpoint.shaField() == null ? null : text(root, endpoint.shaField());
    return known(sha == null ? version : version + " (sha " + sha + ")");
  }

  private static String text(JsonNode root, String field) {
    JsonNode value = root == null ? null : root.get(field);
    return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
  }
}
