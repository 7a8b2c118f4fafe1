package dev.svc.server.http;

import dev.svc.server.faults.PostgresDatabases;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link AgentProtocolTest} on a real PostgreSQL, a database of its own per test: a command handed
 * out once, a result posted twice stored once, one active test per agent, there too.
 */
class AgentProtocolOnPostgresTest extends AgentProtocolTest {

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();
  private String url;

  /** Made when the test's server starts (the base class starts it before this class's own set-up runs). */
  @Override
  String databaseUrl() throws SQLException {
    if (url == null) {
      url = POSTGRES.newDatabase("agent_protocol");
    }
    return url;
  }
}
