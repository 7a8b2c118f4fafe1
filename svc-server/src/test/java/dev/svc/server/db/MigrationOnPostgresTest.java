package dev.svc.server.db;

import dev.svc.server.faults.PostgresDatabases;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link MigrationTest} on a real PostgreSQL: the same changelog upgrades older databases there too. */
class MigrationOnPostgresTest extends MigrationTest {

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();
  private String url;

  @BeforeEach
  void newDatabase() throws Exception {
    url = POSTGRES.newDatabase("migration");
  }

  @Override
  String databaseUrl() {
    return url;
  }
}
