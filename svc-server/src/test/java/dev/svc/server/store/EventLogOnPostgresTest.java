package dev.svc.server.store;

import dev.svc.server.faults.ThrowawayPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link EventLogTest} on a real PostgreSQL: events are numbered in the order they are stored there too. */
class EventLogOnPostgresTest extends EventLogTest {

  private static ThrowawayPostgres postgres;
  private static String url;

  @BeforeAll
  static void startPostgres() throws Exception {
    postgres = ThrowawayPostgres.start();
    url = postgres.newDatabase("event_log");
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Override
  String databaseUrl() {
    return url;
  }
}
