package dev.svc.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The schema version follows the changelog: a changeset added with any id other than the next vN
 * fails here (and at startup), so a migration can never be skipped by a forgotten constant.
 */
class SchemaVersionTest {

  @Test
  void changeSetsAreNumberedV1ToVnAndTheVersionIsTheLast() throws Exception {
    String text;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(SchemaVersion.CHANGELOG)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<String> ids = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^\\s*-\\s*changeSet:\\s*\\n\\s*id:\\s*(\\S+)").matcher(text);
    while (m.find()) {
      ids.add(m.group(1));
    }
    assertThat(ids).hasSizeGreaterThanOrEqualTo(11);
    for (int i = 0; i < ids.size(); i++) {
      assertThat(ids.get(i)).as("changeset %d", i + 1).isEqualTo("v" + (i + 1));
    }
    assertThat(SchemaVersion.current()).isEqualTo(ids.size());
    assertThat(SchemaVersion.changeSetIds()).containsExactlyElementsOf(ids);
  }

  @Test
  void historyReproducesTheMissionsMilestones() throws Exception {
    String text;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(SchemaVersion.CHANGELOG)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(section(text, "v8")).contains("tableName: agent_settings");
    assertThat(section(text, "v9")).contains("name: cpu_arch");
    assertThat(section(text, "v10")).contains("tableName: campaign_logs");
  }

  @Test
  void numberOfRejectsIdsThatAreNotVersions() {
    assertThat(SchemaVersion.numberOf("v12")).isEqualTo(12);
    assertThat(SchemaVersion.numberOf("v0")).isEqualTo(-1);
    assertThat(SchemaVersion.numberOf("add-table")).isEqualTo(-1);
    assertThat(SchemaVersion.numberOf("v1a")).isEqualTo(-1);
  }

  private static String section(String text, String id) {
    int start = text.indexOf("id: " + id + "\n");
    int next = text.indexOf("- changeSet:", start);
    return next < 0 ? text.substring(start) : text.substring(start, next);
  }
}
