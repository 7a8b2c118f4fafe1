package dev.svc.server.store;

import dev.svc.server.faults.PostgresDatabases;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link EventLogTest} on a real PostgreSQL: events are numbered in the order they are stored there too. */
class EventLogOnPostgresTest extends EventLogTest {

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();
  private String url;

  @BeforeEach
  void newDatabase() throws Exception {
    url = POSTGRES.newDatabase("event_log");
  }

  @Override
  String databaseUrl() {
    return url;
  }
}
