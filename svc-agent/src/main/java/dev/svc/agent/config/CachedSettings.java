package dev.svc.agent.config;

import dev.svc.core.domain.AgentSettings;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The settings the daemon last received from the server ({@link AgentHome#settingsCache}): the
 * heartbeat answer's settings object, its values strings as they travel. A cache an older agent
 * wrote holds them one level down, under {@code settings}; a value at the top wins. Keys other than
 * {@link AgentSettings#KEYS} are ignored.
 *
 * @param values the known settings the cache holds, by key
 */
public record CachedSettings(Map<String, String> values) {

  public static final int MAX_VALUE_LENGTH = 1024;

  public CachedSettings {
    values = Map.copyOf(values);
  }

  public static CachedSettings parse(JsonObject json) {
    JsonObject older = Fields.optObject(json, "settings");
    Map<String, String> values = new LinkedHashMap<>();
    for (String key : AgentSettings.KEYS) {
      String value = Fields.optString(json, key, null);
      if (value == null && older != null) {
        value = Fields.optString(older, key, null);
      }
      if (value != null) {
        values.put(key, Fields.line(key, value, MAX_VALUE_LENGTH));
      }
    }
    return new CachedSettings(values);
  }

  /**
   * The cache at {@code file}; empty when there is none, or when it is damaged: that only loses the
   * cached values until the daemon rewrites the file on its next heartbeat.
   */
  public static Optional<CachedSettings> read(Path file) throws IOException {
    if (file == null || !Files.isRegularFile(file)) {
      return Optional.empty();
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    try {
      return Optional.of(parse(new JsonObject(text)));
    } catch (BadMessage | DecodeException | ClassCastException damaged) {
      return Optional.empty();
    }
  }

  /** The {@code kitt_image} setting, stripped; empty when it is not set. */
  public Optional<String> kittImage() {
    String image = values.get(AgentSettings.KITT_IMAGE);
    return image == null || image.isBlank() ? Optional.empty() : Optional.of(image.strip());
  }

  /** The cache as the daemon writes it: the settings object, flat. */
  public JsonObject toJson() {
    JsonObject json = new JsonObject();
    AgentSettings.KEYS.stream().filter(values::containsKey).forEach(key -> json.put(key, values.get(key)));
    return json;
  }
}
