package dev.svc.server.http;

import dev.svc.server.faults.ThrowawayPostgres;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link AgentProtocolTest} on a real PostgreSQL, a database of its own per test: a command handed
 * out once, a result posted twice stored once, one active test per agent, there too.
 */
class AgentProtocolOnPostgresTest extends AgentProtocolTest {

  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static ThrowawayPostgres postgres;
  private String url;

  @BeforeAll
  static void startPostgres() throws Exception {
    postgres = ThrowawayPostgres.start();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    if (postgres != null) {
      postgres.close();
    }
  }

  /** Made when the test's server starts (the base class starts it before this class's own set-up runs). */
  @Override
  String databaseUrl() throws SQLException {
    if (url == null) {
      url = postgres.newDatabase("agent_protocol_" + DATABASES.incrementAndGet());
    }
    return url;
  }
}
