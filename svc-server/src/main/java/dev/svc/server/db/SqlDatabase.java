package dev.svc.server.db;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.jdbcclient.JDBCPool;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import dev.svc.core.home.PrivateFiles;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's database: SQLite by default (WAL, one writer connection, a wait for outside
 * tools' locks: {@link SqliteBusyWait}) or PostgreSQL, both through vertx-jdbc-client. Migrations run on a
 * worker before the pool is handed out, unless the database is already current (AppliedChangelog).
 */
public final class SqlDatabase {

  private static final Logger LOG = LoggerFactory.getLogger(SqlDatabase.class);

  private final Pool pool;
  private final String url;
  private final int schemaVersion;
  private final int appliedChangeSets;
  private final boolean liquibaseRan;

  private SqlDatabase(Pool pool, String url, int schemaVersion, int appliedChangeSets, boolean liquibaseRan) {
    this.pool = pool;
    this.url = url;
    this.schemaVersion = schemaVersion;
    this.appliedChangeSets = appliedChangeSets;
    this.liquibaseRan = liquibaseRan;
  }

  /** The PostgreSQL advisory lock held while a node checks and migrates the schema ("svcm" in ASCII). */
  static final long MIGRATION_LOCK = 0x7376636DL;

  private static void execute(Connection connection, String sql) throws java.sql.SQLException {
    try (java.sql.Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  public static String sqliteUrl(Path file) {
    return "jdbc:sqlite:" + file.toAbsolutePath();
  }

  public static Future<SqlDatabase> open(Vertx vertx, String url) {
    return vertx.executeBlocking(() -> {
      DataSource dataSource = dataSource(url);
      int applied = 0;
      int version;
      boolean liquibase;
      try (Connection connection = dataSource.getConnection()) {
        boolean shared = url.startsWith("jdbc:postgresql:");
        if (shared) {
          // nodes starting together migrate one after the other: the next finds the changelog current.
          // (Liquibase's own lock alone can leave a waiting node stuck behind a first-time migration.)
          execute(connection, "SELECT pg_advisory_lock(" + MIGRATION_LOCK + ")");
        }
        try {
          liquibase = !AppliedChangelog.isCurrent(connection);
          if (liquibase) {
            applied = Migrations.update(connection);
          }
          version = AppliedChangelog.version(connection);
        } finally {
          if (shared) {
            execute(connection, "SELECT pg_advisory_unlock(" + MIGRATION_LOCK + ")");
          }
        }
      }
      if (version != SchemaVersion.current()) {
        throw new IllegalStateException("Database " + url + " is at schema v" + version
            + " but this build expects v" + SchemaVersion.current());
      }
      LOG.info("Database schema v{} ({} changesets applied now{})", version, applied,
          liquibase ? "" : "; changelog fingerprint current, Liquibase not run");
      boolean sqlite = url.startsWith("jdbc:sqlite:");
      // the name is the pool_name of its vertx_pool_* series in /metrics
      PoolOptions options = new PoolOptions().setMaxSize(sqlite ? 1 : 8).setName("svc-db");
      return new SqlDatabase(JDBCPool.pool(vertx, new AutoCommitRestoringDataSource(dataSource), options), url, version,
          applied, liquibase);
    }, false);
  }

  static DataSource dataSource(String url) throws Exception {
    if (url.startsWith("jdbc:sqlite:")) {
      String file = url.substring("jdbc:sqlite:".length());
      if (!file.isEmpty() && !file.startsWith(":memory:") && !file.startsWith("file:")) {
        privateDatabaseFiles(Path.of(file).toAbsolutePath());
      }
      SQLiteConfig config = new SQLiteConfig();
      config.setJournalMode(SQLiteConfig.JournalMode.WAL);
      config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
      config.setBusyTimeout((int) SqliteBusyWait.PATIENCE_MS);
      AtomicLong lastGaveUp = SqliteBusyWait.neverGaveUp();
      SQLiteDataSource ds = new SQLiteDataSource(config) {
        @Override
        public SQLiteConnection getConnection(String user, String password) throws SQLException {
          SQLiteConnection connection = super.getConnection(user, password);
          SqliteBusyWait.install(connection, lastGaveUp); // replaces the busy timeout set above
          return connection;
        }
      };
      ds.setUrl(url);
      return ds;
    }
    if (url.startsWith("jdbc:postgresql:")) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setUrl(url);
      return ds;
    }
    throw new IllegalArgumentException("Unsupported database URL '" + url
        + "': use jdbc:sqlite:<file> or jdbc:postgresql://host:port/db?user=…&password=…");
  }

  /**
   * The database holds agents' token hashes and everything the API serves, so other local users
   * must not read it: the file is created owner-only (0600) before SQLite opens it, and SQLite gives
   * the WAL, SHM and journal files it creates the database file's permissions. Files left too open
   * by an older version are tightened (with a warning).
   */
  private static void privateDatabaseFiles(Path db) {
    PrivateFiles.file(db);
    for (String suffix : new String[] {"-wal", "-shm", "-journal"}) {
      PrivateFiles.tighten(db.resolveSibling(db.getFileName() + suffix));
    }
  }

  public Pool pool() {
    return pool;
  }

  public String url() {
    return url;
  }

  /** Whether this is PostgreSQL (else SQLite): the few statements that differ ask. */
  public boolean postgres() {
    return url.startsWith("jdbc:postgresql:");
  }

  public int schemaVersion() {
    return schemaVersion;
  }

  public int appliedChangeSets() {
    return appliedChangeSets;
  }

  /** Whether this open ran Liquibase (false when the database was already current). */
  public boolean liquibaseRan() {
    return liquibaseRan;
  }

  public Future<Void> close() {
    return pool.close();
  }
}
