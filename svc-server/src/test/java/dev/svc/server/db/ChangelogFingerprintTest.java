package dev.svc.server.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database that already holds this build's changelog opens without Liquibase; anything else is
 * migrated by Liquibase. Liquibase fills in a changeset's checksum when it finds it empty, so an
 * emptied checksum that is still empty after an open shows that Liquibase did not run.
 */
class ChangelogFingerprintTest {

  @TempDir
  Path dir;

  private Vertx vertx;
  private String url;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    url = SqlDatabase.sqliteUrl(dir.resolve("svc.db"));
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  @Test
  void aCurrentDatabaseOpensWithoutRunningLiquibase() throws Exception {
    SqlDatabase first = SqlDatabase.open(vertx, url).await();
    assertThat(first.liquibaseRan()).isTrue();
    assertThat(first.appliedChangeSets()).isEqualTo(SchemaVersion.current());
    first.close().await();
    assertThat(recordedFingerprint()).isEqualTo(SchemaVersion.fingerprint());
    emptyChecksumOfFirstChangeSet();

    SqlDatabase second = SqlDatabase.open(vertx, url).await();
    try {
      assertThat(second.liquibaseRan()).isFalse();
      assertThat(second.appliedChangeSets()).isZero();
      assertThat(second.schemaVersion()).isEqualTo(SchemaVersion.current());
      assertThat(checksumOfFirstChangeSet()).as("Liquibase would have filled in the empty checksum").isNull();
    } finally {
      second.close().await();
    }
  }

  @Test
  void aDatabaseOneChangeSetBehindIsMigratedEvenUnderThisBuildsFingerprint() throws Exception {
    try (Connection c = DriverManager.getConnection(url)) {
      Migrations.updateTo(c, SchemaVersion.current() - 1);
      AppliedChangelog.recordFingerprint(c);
    }
    SqlDatabase db = SqlDatabase.open(vertx, url).await();
    try {
      assertThat(db.liquibaseRan()).isTrue();
      assertThat(db.appliedChangeSets()).isEqualTo(1);
      assertThat(db.schemaVersion()).isEqualTo(SchemaVersion.current());
    } finally {
      db.close().await();
    }
  }

  @Test
  void anEditedFingerprintMakesLiquibaseCheckTheDatabaseAgain() throws Exception {
    SqlDatabase.open(vertx, url).await().close().await();
    try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE " + AppliedChangelog.FINGERPRINT_TABLE + " SET fingerprint = 'edited'");
    }
    emptyChecksumOfFirstChangeSet();

    SqlDatabase db = SqlDatabase.open(vertx, url).await();
    try {
      assertThat(db.liquibaseRan()).isTrue();
      assertThat(db.appliedChangeSets()).isZero();
      assertThat(checksumOfFirstChangeSet()).as("filled in by Liquibase").isNotBlank();
      assertThat(recordedFingerprint()).isEqualTo(SchemaVersion.fingerprint());
    } finally {
      db.close().await();
    }
  }

  @Test
  void aDatabaseOfABuildThatRecordedNoFingerprintIsCheckedByLiquibaseAndThenRecordsOne() throws Exception {
    try (Connection c = DriverManager.getConnection(url)) {
      Migrations.updateTo(c, SchemaVersion.current());
    }
    emptyChecksumOfFirstChangeSet();
    SqlDatabase db = SqlDatabase.open(vertx, url).await();
    try {
      assertThat(db.liquibaseRan()).isTrue();
      assertThat(db.appliedChangeSets()).isZero();
      assertThat(checksumOfFirstChangeSet()).isNotBlank();
      assertThat(recordedFingerprint()).isEqualTo(SchemaVersion.fingerprint());
    } finally {
      db.close().await();
    }
  }

  private String recordedFingerprint() throws SQLException {
    try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT fingerprint FROM " + AppliedChangelog.FINGERPRINT_TABLE)) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }

  private void emptyChecksumOfFirstChangeSet() throws SQLException {
    try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
      assertThat(st.executeUpdate("UPDATE DATABASECHANGELOG SET MD5SUM = NULL WHERE ID = 'v1'")).isEqualTo(1);
    }
  }

  private String checksumOfFirstChangeSet() throws SQLException {
    try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
         ResultSet rs = st.executeQuery("SELECT MD5SUM FROM DATABASECHANGELOG WHERE ID = 'v1'")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }
}
