package dev.svc.server.http;

import dev.svc.server.TestServer;
import dev.svc.server.faults.PostgresDatabases;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LogBatchesTest} on a real PostgreSQL, a database of its own per test: a batch is stored
 * once whatever its retries, and a line with its event or not at all, there too.
 */
class LogBatchesOnPostgresTest extends LogBatchesTest {

  @RegisterExtension
  static final PostgresDatabases POSTGRES = new PostgresDatabases();
  private String url;

  @BeforeEach
  void newDatabase() throws Exception {
    url = POSTGRES.newDatabase("log_batches");
  }

  @Override
  TestServer.Options database(TestServer.Options options) {
    return options.dbUrl(url);
  }

  @Override
  String jdbcUrl() {
    return url;
  }

  @Override
  void refuseEventsContaining(String text) throws SQLException {
    execute("CREATE FUNCTION refuse_poison() RETURNS trigger AS $$ BEGIN"
        + " IF NEW.data LIKE '%" + text + "%' THEN RAISE EXCEPTION 'injected fault'; END IF;"
        + " RETURN NEW; END $$ LANGUAGE plpgsql");
    execute("CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_poison()");
  }

  @Override
  String dropRefusal() {
    return "DROP TRIGGER refuse_poison ON events";
  }
}
