package dev.svc.core.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentSettingsTest {

  @Test
  void heartbeatIntervalMustBeAnIntegerFrom10To300() {
    assertThat(AgentSettings.validate("heartbeat_interval_s", 9).isOk()).isFalse();
    assertThat(AgentSettings.validate("heartbeat_interval_s", 301).isOk()).isFalse();
    assertThat(AgentSettings.validate("heartbeat_interval_s", 45.5).isOk()).isFalse();
    assertThat(AgentSettings.validate("heartbeat_interval_s", "abc").isOk()).isFalse();
    assertThat(AgentSettings.validate("heartbeat_interval_s", 10).value()).isEqualTo("10");
    assertThat(AgentSettings.validate("heartbeat_interval_s", "300").value()).isEqualTo("300");
  }

  @Test
  void unknownKeysAreNamedInTheError() {
    AgentSettings.Validated v = AgentSettings.validate("gpu_turbo", "on");
    assertThat(v.isOk()).isFalse();
    assertThat(v.error()).contains("gpu_turbo");
  }

  @Test
  void booleansAndShareSourcesAreChecked() {
    assertThat(AgentSettings.validate("auto_cleanup", false).value()).isEqualTo("false");
    assertThat(AgentSettings.validate("auto_cleanup", "yes").isOk()).isFalse();
    assertThat(AgentSettings.validate("model_share_source", "nas:/export/models").value()).isEqualTo("nas:/export/models");
    assertThat(AgentSettings.validate("model_share_source", "/export/models").isOk()).isFalse();
    assertThat(AgentSettings.validate("model_storage_dir", "relative/dir").isOk()).isFalse();
  }

  @Test
  void kittImageIsAnImageReferenceOrEmpty() {
    assertThat(AgentSettings.validate("kitt_image", "registry.example.com/svc/kitt:1.6").isOk()).isTrue();
    assertThat(AgentSettings.validate("kitt_image", "").value()).isEmpty();
    assertThat(AgentSettings.validate("kitt_image", "--privileged").error()).contains("kitt_image");
    assertThat(AgentSettings.validate("kitt_image", "alpine -v /:/host").isOk()).isFalse();
  }

  @Test
  void textSettingsRefuseControlAndBidiCharacters() {
    assertThat(AgentSettings.validate("model_storage_dir", "/data/\u001b[2Jmodels").error()).contains("model_storage_dir");
    assertThat(AgentSettings.validate("model_share_mount", "/mnt/\u202Eslm").isOk()).isFalse();
    assertThat(AgentSettings.validate("model_share_source", "nas:/exp\nort").isOk()).isFalse();
    assertThat(AgentSettings.validate("model_storage_dir", "/data/models").isOk()).isTrue();
  }

  @Test
  void effectiveSettingsHaveEveryKeyAsAString() {
    Map<String, String> effective = AgentSettings.effective(Map.of("heartbeat_interval_s", "60", "bogus", "x"));
    assertThat(effective.keySet()).containsExactlyElementsOf(AgentSettings.KEYS);
    assertThat(effective.get("heartbeat_interval_s")).isEqualTo("60");
    assertThat(effective.get("auto_cleanup")).isEqualTo("true");
  }

  @Test
  void heartbeatIntervalIsReadFromSettingsWithTheDefaultAsFallback() {
    assertThat(AgentSettings.heartbeatIntervalS(Map.of("heartbeat_interval_s", "45"))).isEqualTo(45);
    assertThat(AgentSettings.heartbeatIntervalS(Map.of())).isEqualTo(30);
    assertThat(AgentSettings.heartbeatIntervalS(Map.of("heartbeat_interval_s", "soon"))).isEqualTo(30);
    // outside the range the server accepts (a hostile or broken answer): held to it, never a 0 ms beat
    assertThat(AgentSettings.heartbeatIntervalS(Map.of("heartbeat_interval_s", "0"))).isEqualTo(10);
    assertThat(AgentSettings.heartbeatIntervalS(Map.of("heartbeat_interval_s", "999999999"))).isEqualTo(300);
  }
}
