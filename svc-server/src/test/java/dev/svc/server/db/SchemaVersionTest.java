package dev.svc.server.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The schema version follows the changelog: a changeset added with any id other than the next vN
 * fails here (and at startup), so a migration can never be skipped by a forgotten constant.
 */
class SchemaVersionTest {

  @Test
  @SuppressWarnings("unchecked")
  void changeSetsAreNumberedV1ToVnAndTheVersionIsTheLast() throws Exception {
    // the changelog as Liquibase reads it: YAML, not the line scan the server starts with
    Map<String, Object> root;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(SchemaVersion.CHANGELOG)) {
      root = new Yaml().load(in);
    }
    List<String> ids = new ArrayList<>();
    for (Object entry : (List<Object>) root.get("databaseChangeLog")) {
      Map<String, Object> changeSet = (Map<String, Object>) ((Map<String, Object>) entry).get("changeSet");
      if (changeSet != null) {
        ids.add(String.valueOf(changeSet.get("id")));
      }
    }
    assertThat(ids).hasSizeGreaterThanOrEqualTo(18);
    for (int i = 0; i < ids.size(); i++) {
      assertThat(ids.get(i)).as("changeset %d", i + 1).isEqualTo("v" + (i + 1));
    }
    assertThat(SchemaVersion.current()).isEqualTo(ids.size());
    assertThat(SchemaVersion.changeSetIds()).containsExactlyElementsOf(ids);
  }

  @Test
  void aChangeSetWhoseFirstLineIsNotItsIdIsRefused() {
    String changelog = "databaseChangeLog:\n  - changeSet:\n      id: v1\n      author: svc\n"
        + "  - changeSet:\n      author: svc\n      id: v2\n";
    assertThatThrownBy(() -> SchemaVersion.changeSetIds(changelog))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("Line 6").hasMessageContaining("id: vN");
    assertThat(SchemaVersion.changeSetIds("databaseChangeLog:\n  - changeSet:\n      id: 'v1'\n"))
        .containsExactly("v1");
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
