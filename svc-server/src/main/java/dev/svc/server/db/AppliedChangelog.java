package dev.svc.server.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a database holds of the changelog, read with plain JDBC (blocking: call it from a worker).
 * After a complete Liquibase update the changelog's fingerprint is kept in the database (table
 * {@value #FINGERPRINT_TABLE}); a start that finds this build's fingerprint there and every changeset
 * applied skips Liquibase, whose loading and checking cost about a second of CPU even when there is
 * nothing to apply. This class refers to no Liquibase class, so that a skip loads none.
 */
public final class AppliedChangelog {

  /** One row: the fingerprint of the changelog last applied in full. Not a changeset: it describes them. */
  static final String FINGERPRINT_TABLE = "svc_changelog_fingerprint";

  private AppliedChangelog() {
  }

  /**
   * Whether the database holds every changeset of this build's changelog: the fingerprint recorded
   * after the last complete update is this changelog's and the highest applied version is the
   * current one, with none missing below it. Anything else (no fingerprint, another changelog's, a changeset missing, an error
   * reading them) answers false, and Liquibase runs as it always did.
   */
  public static boolean isCurrent(Connection connection) {
    try (Statement st = connection.createStatement();
         ResultSet rs = st.executeQuery("SELECT fingerprint FROM " + FINGERPRINT_TABLE)) {
      if (!rs.next() || !SchemaVersion.fingerprint().equals(rs.getString(1)) || rs.next()) {
        return false;
      }
    } catch (SQLException noTableOrUnreadable) {
      return false;
    }
    try {
      return version(connection) == SchemaVersion.current() && count(connection) == SchemaVersion.current();
    } catch (SQLException unreadable) {
      return false;
    }
  }

  /** Replaces the recorded fingerprint with this changelog's, in one transaction: call it after a complete update. */
  static void recordFingerprint(Connection connection) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    try (Statement st = connection.createStatement()) {
      st.executeUpdate("CREATE TABLE IF NOT EXISTS " + FINGERPRINT_TABLE + " (fingerprint VARCHAR(64) NOT NULL)");
      connection.setAutoCommit(false);
      st.executeUpdate("DELETE FROM " + FINGERPRINT_TABLE);
      try (PreparedStatement insert = connection.prepareStatement(
          "INSERT INTO " + FINGERPRINT_TABLE + " (fingerprint) VALUES (?)")) {
        insert.setString(1, SchemaVersion.fingerprint());
        insert.executeUpdate();
      }
      connection.commit();
    } catch (SQLException e) {
      if (!connection.getAutoCommit()) {
        connection.rollback();
      }
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /** The highest changeset version recorded in the database, 0 when none. */
  static int version(Connection connection) throws SQLException {
    if (!hasTable(connection)) {
      return 0;
    }
    int max = 0;
    try (Statement st = connection.createStatement();
         ResultSet rs = st.executeQuery("SELECT id FROM DATABASECHANGELOG")) {
      while (rs.next()) {
        max = Math.max(max, SchemaVersion.numberOf(rs.getString(1)));
      }
    }
    return max;
  }

  /** How many changesets the database records as applied, 0 when none. */
  static int count(Connection connection) throws SQLException {
    if (!hasTable(connection)) {
      return 0;
    }
    try (Statement st = connection.createStatement();
         ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM DATABASECHANGELOG")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static boolean hasTable(Connection connection) throws SQLException {
    for (String name : new String[] {"DATABASECHANGELOG", "databasechangelog"}) {
      try (ResultSet rs = connection.getMetaData().getTables(null, null, name, null)) {
        if (rs.next()) {
          return true;
        }
      }
    }
    return false;
  }
}
