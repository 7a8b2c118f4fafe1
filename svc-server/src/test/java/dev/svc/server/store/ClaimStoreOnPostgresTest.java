package dev.svc.server.store;

import dev.svc.server.faults.PostgresDatabases;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ClaimStoreTest} on a real PostgreSQL, the clustered deployment's store; a database per test. */
class ClaimStoreOnPostgresTest extends ClaimStoreTest {

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();

  @Override
  String databaseUrl() throws Exception {
    return POSTGRES.newDatabase("claims");
  }
}
