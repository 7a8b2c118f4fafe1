package dev.svc.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings cache: flat or as an older agent nested it, written and read back, damaged ones ignored. */
class CachedSettingsTest {

  @TempDir
  Path dir;

  @Test
  void theCacheRoundTripsAndIgnoresUnknownKeys() {
    JsonObject written = new JsonObject().put("model_storage_dir", "~/.svc/models").put("heartbeat_interval_s", "30")
        .put("kitt_image", " registry.lab/svc:2 ").put("something_new", 5);
    CachedSettings cached = CachedSettings.parse(written);
    assertThat(cached.values()).containsOnlyKeys("model_storage_dir", "heartbeat_interval_s", "kitt_image");
    assertThat(cached.kittImage()).contains("registry.lab/svc:2");
    assertThat(CachedSettings.parse(new JsonObject(cached.toJson().encode()))).isEqualTo(cached);
  }

  @Test
  void anOlderCacheHoldsTheSettingsOneLevelDownAndTheTopWins() {
    JsonObject older = new JsonObject().put("agent_id", "a1").put("commands", new io.vertx.core.json.JsonArray())
        .put("settings", new JsonObject().put("kitt_image", "old/svc:1").put("auto_cleanup", "true"));
    assertThat(CachedSettings.parse(older).kittImage()).contains("old/svc:1");
    assertThat(CachedSettings.parse(older.copy().put("kitt_image", "top/svc:2")).kittImage()).contains("top/svc:2");
    assertThat(CachedSettings.parse(new JsonObject().put("kitt_image", " ")).kittImage()).isEmpty();
  }

  @Test
  void aMalformedCacheIsRefusedWithOneSentence() {
    assertThatThrownBy(() -> CachedSettings.parse(new JsonObject().put("kitt_image", 3)))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'kitt_image' must be a string");
    assertThatThrownBy(() -> CachedSettings.parse(new JsonObject().put("settings", "x")))
        .hasMessage("Field 'settings' must be an object");
    assertThatThrownBy(() -> CachedSettings.parse(new JsonObject().put("kitt_image", "a\nb")))
        .hasMessageStartingWith("Field 'kitt_image' must not contain control");
    assertThatThrownBy(() -> CachedSettings.parse(new JsonObject().put("model_storage_dir", "x".repeat(1025))))
        .hasMessage("Field 'model_storage_dir' must be at most 1024 characters");
  }

  @Test
  void aMissingOrDamagedFileReadsAsNoCache() throws Exception {
    Path file = dir.resolve("agent-settings.json");
    assertThat(CachedSettings.read(file)).isEmpty();
    Files.writeString(file, "{not json");
    assertThat(CachedSettings.read(file)).isEmpty();
    Files.writeString(file, "{\"kitt_image\": [1]}");
    assertThat(CachedSettings.read(file)).isEmpty();
    Files.writeString(file, "{\"kitt_image\": \"lab/svc:3\"}");
    assertThat(CachedSettings.read(file)).contains(new CachedSettings(Map.of("kitt_image", "lab/svc:3")));
    assertThat(CachedSettings.read(null)).isEqualTo(Optional.empty());
  }
}
