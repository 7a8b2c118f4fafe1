package dev.svc.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Databases of older versions are upgraded in place on start, rows intact. */
class MigrationTest {

  @TempDir
  Path home;

  /** The database under test: SQLite in the home here; {@link MigrationOnPostgresTest} gives a PostgreSQL one. */
  String databaseUrl() {
    return SqlDatabase.sqliteUrl(home.resolve("svc.db"));
  }

  private TestServer start() {
    return TestServer.start(home, new TestServer.Options().dbUrl(databaseUrl()));
  }

  @Test
  void databaseAtV7IsUpgradedWithRowsIntact() throws Exception {
    String url = databaseUrl();
    try (Connection c = DriverManager.getConnection(url)) {
      assertThat(Migrations.updateTo(c, 7)).isEqualTo(7);
      assertThat(Migrations.appliedVersion(c)).isEqualTo(7);
      try (Statement st = c.createStatement()) {
        st.executeUpdate("INSERT INTO agents (id, name, hostname, port, gpu_info, gpu_count, status, registered_at,"
            + " token_hash, token_prefix) VALUES ('00000000000000a1', 'old-node', 'old.lab', 8090, 'A100', 4, 'idle',"
            + " '2025-01-01T00:00:00.000Z', 'abc', 'abcdefgh')");
        st.executeUpdate("INSERT INTO quick_tests (id, agent_id, model_path, engine_name, benchmark_name, suite_name,"
            + " status, command_id, created_at) VALUES ('00000000000000b1', '00000000000000a1', '/models/old',"
            + " 'vllm', 'throughput', 'quick', 'completed', '00000000000000c1', '2025-01-02T00:00:00.000Z')");
        st.executeUpdate("INSERT INTO quick_test_logs (test_id, line, created_at) VALUES ('00000000000000b1',"
            + " 'old log line', '2025-01-02T00:00:01.000Z')");
        st.executeUpdate("INSERT INTO results (id, model, engine, suite_name, timestamp, passed, data, created_at)"
            + " VALUES ('00000000000000d1', '/models/old', 'vllm', 'quick', '2025-01-02T00:01:00.000Z', 1,"
            + " '{\"engine\":\"vllm\",\"model\":\"/models/old\",\"kitt_version\":\"1.2.0\"}', '2025-01-02T00:01:00.000Z')");
        st.executeUpdate("INSERT INTO campaigns (id, name, agent_id, config, status, total_runs, succeeded, failed,"
            + " skipped, created_at) VALUES ('00000000000000e1', 'old campaign', '00000000000000a1', '{}', 'completed',"
            + " 1, 1, 0, 0, '2025-01-03T00:00:00.000Z')");
        st.executeUpdate("INSERT INTO settings (key, value) VALUES ('model_dir', '/srv/models')");
      }
    }

    try (TestServer server = start()) {
      assertThat(server.running().database().schemaVersion()).isEqualTo(SchemaVersion.current());
      assertThat(server.running().database().appliedChangeSets()).isEqualTo(SchemaVersion.current() - 7);

      JsonArray agents = server.get("/api/v1/agents").bodyAsJsonArray();
      assertThat(agents).as(server.get("/api/v1/agents").bodyAsString()).hasSize(1);
      assertThat(agents.getJsonObject(0).getString("name")).isEqualTo("old-node");
      assertThat(agents.getJsonObject(0).getBoolean("has_token")).isTrue();
      assertThat(agents.getJsonObject(0).getJsonObject("settings").getString("heartbeat_interval_s")).isEqualTo("30");

      JsonObject test = server.get("/api/v1/quicktest/00000000000000b1").bodyAsJsonObject();
      assertThat(test.getString("status")).isEqualTo("completed");
      assertThat(test.getString("agent_name")).isEqualTo("old-node");
      assertThat(server.get("/api/v1/quicktest/00000000000000b1/logs").bodyAsJsonObject().getJsonArray("lines")
          .getJsonObject(0).getString("line")).isEqualTo("old log line");
      assertThat(server.get("/api/v1/results/00000000000000d1").bodyAsJsonObject().getString("kitt_version"))
          .isEqualTo("1.2.0");
      assertThat(server.get("/api/v1/campaigns/00000000000000e1").bodyAsJsonObject().getString("name"))
          .isEqualTo("old campaign");
      assertThat(server.get("/api/v1/settings").bodyAsJsonObject().getJsonObject("model_dir").getString("value"))
          .isEqualTo("/srv/models");
    }
  }

  @Test
  void anOlderDatabaseThatBrokeTheNewRulesIsRepairedByTheUpgrade() throws Exception {
    String url = databaseUrl();
    try (Connection c = DriverManager.getConnection(url)) {
      assertThat(Migrations.updateTo(c, 11)).isEqualTo(11);
      try (Statement st = c.createStatement()) {
        for (String[] agent : new String[][] {{"00000000000000a1", "2025-01-01"}, {"00000000000000a2", "2025-01-02"}}) {
          st.executeUpdate("INSERT INTO agents (id, name, hostname, status, registered_at, is_test_agent) VALUES ('"
              + agent[0] + "', 'twin', 'h', 'idle', '" + agent[1] + "T00:00:00.000Z', 0)");
        }
        for (String[] test : new String[][] {{"00000000000000b1", "running", "01"}, {"00000000000000b2", "dispatched", "02"},
            {"00000000000000b3", "queued", "03"}}) {
          st.executeUpdate("INSERT INTO quick_tests (id, agent_id, model_path, engine_name, benchmark_name, suite_name,"
              + " status, command_id, created_at) VALUES ('" + test[0] + "', '00000000000000a1', '/models/m', 'vllm',"
              + " 'throughput', 'quick', '" + test[1] + "', 'c" + test[0].substring(1) + "', '2025-02-" + test[2]
              + "T00:00:00.000Z')");
        }
      }
    }
    try (TestServer server = start()) {
      assertThat(server.get("/api/v1/quicktest/00000000000000b1").bodyAsJsonObject().getString("status"))
          .isEqualTo("running");
      JsonObject younger = server.get("/api/v1/quicktest/00000000000000b2").bodyAsJsonObject();
      assertThat(younger.getString("status")).isEqualTo("failed");
      assertThat(younger.getString("error")).contains("active at the same time");
      assertThat(server.get("/api/v1/quicktest/00000000000000b3").bodyAsJsonObject().getString("status"))
          .isEqualTo("queued");
      assertThat(server.get("/api/v1/agents/00000000000000a1").bodyAsJsonObject().getString("name")).isEqualTo("twin");
      assertThat(server.get("/api/v1/agents/00000000000000a2").bodyAsJsonObject().getString("name"))
          .isEqualTo("twin (00000000000000a2)");
    }
  }

  @Test
  void secondStartAppliesNoChangeset() {
    try (TestServer first = start()) {
      assertThat(first.running().database().appliedChangeSets()).isEqualTo(SchemaVersion.current());
    }
    try (TestServer second = start()) {
      assertThat(second.running().database().appliedChangeSets()).isZero();
      assertThat(second.running().database().liquibaseRan()).as("the database is current").isFalse();
      assertThat(second.running().database().schemaVersion()).isEqualTo(SchemaVersion.current());
    }
  }
}
