package dev.svc.server.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.UpdateCountCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

/** Runs the Liquibase changelog on a JDBC connection (blocking: call it from a worker). */
public final class Migrations {

  /** Held so that JUL keeps the level: it forgets levels of loggers that are garbage-collected. */
  private static final Logger LIQUIBASE_LOG = Logger.getLogger("liquibase");

  static {
    LIQUIBASE_LOG.setLevel(Level.WARNING);
    System.setProperty("liquibase.analytics.enabled", "false");
  }

  private Migrations() {
  }

  /**
   * Applies every pending changeset, then records the changelog's fingerprint (AppliedChangelog),
   * by which later starts skip Liquibase; returns how many were applied.
   */
  public static int update(Connection connection) throws Exception {
    int applied = run(connection, null);
    AppliedChangelog.recordFingerprint(connection);
    return applied;
  }

  /** Applies pending changesets up to version {@code upTo} (used to build old databases in tests). */
  public static int updateTo(Connection connection, int upTo) throws Exception {
    return run(connection, upTo);
  }

  /** The highest changeset version recorded in the database, 0 when none. */
  public static int appliedVersion(Connection connection) throws SQLException {
    return AppliedChangelog.version(connection);
  }

  private static int run(Connection connection, Integer upTo) throws Exception {
    boolean autoCommit = connection.getAutoCommit();
    try {
      return runLiquibase(connection, upTo);
    } finally {
      // Liquibase leaves auto-commit off; later statements on this connection would never commit.
      connection.setAutoCommit(autoCommit);
    }
  }

  private static int runLiquibase(Connection connection, Integer upTo) throws Exception {
    int before = AppliedChangelog.count(connection);
    Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
    Map<String, Object> scope = new HashMap<>();
    scope.put("liquibase.analytics.enabled", false);
    scope.put(Scope.Attr.ui.name(), new LoggerUIService());
    scope.put(Scope.Attr.resourceAccessor.name(), new ClassLoaderResourceAccessor(Migrations.class.getClassLoader()));
    Scope.child(scope, () -> {
      int pending = upTo == null ? Integer.MAX_VALUE : upTo - appliedVersion(connection);
      if (pending <= 0) {
        return;
      }
      CommandScope command = upTo == null
          ? new CommandScope(UpdateCommandStep.COMMAND_NAME)
          : new CommandScope(UpdateCountCommandStep.COMMAND_NAME).addArgumentValue(UpdateCountCommandStep.COUNT_ARG, pending);
      command.addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
          .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, SchemaVersion.CHANGELOG)
          .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
          .execute();
    });
    return AppliedChangelog.count(connection) - before;
  }
}
