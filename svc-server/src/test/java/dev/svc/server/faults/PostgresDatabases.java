package dev.svc.server.faults;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's own PostgreSQL ({@link ThrowawayPostgres}), started before its tests and stopped
 * after them, with a new empty database for each test that asks: register it as a static
 * {@code @RegisterExtension} field.
 */
public final class PostgresDatabases implements BeforeAllCallback, AfterAllCallback {

  private final AtomicInteger made = new AtomicInteger();
  private ThrowawayPostgres postgres;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    postgres = ThrowawayPostgres.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (postgres != null) {
      postgres.close();
    }
  }

  /** The JDBC URL of a new database named {@code prefix_<n>}. */
  public String newDatabase(String prefix) throws java.sql.SQLException {
    return postgres.newDatabase(prefix + "_" + made.incrementAndGet());
  }
}
