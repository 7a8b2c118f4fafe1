package dev.svc.server.store;

import dev.svc.server.faults.ThrowawayPostgres;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link LeaseStoreTest} on a real PostgreSQL, the clustered deployment's store; a database per test. */
class LeaseStoreOnPostgresTest extends LeaseStoreTest {

  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static ThrowawayPostgres postgres;

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

  @Override
  String databaseUrl() throws Exception {
    return postgres.newDatabase("leases_" + DATABASES.incrementAndGet());
  }
}
