package dev.svc.server.dispatch;

import dev.svc.server.faults.PostgresDatabases;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dispatch rules of {@link DispatchInvariantsTest}, each on a database of its own in a real
 * PostgreSQL (the clustered deployment's store): the constraints and transactions that hold them
 * must hold there too.
 */
class DispatchInvariantsOnPostgresTest extends DispatchInvariantsTest {

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();
  private String url;

  @BeforeEach
  void newDatabase() throws Exception {
    url = POSTGRES.newDatabase("dispatch");
  }

  @Override
  String databaseUrl() {
    return url;
  }
}
