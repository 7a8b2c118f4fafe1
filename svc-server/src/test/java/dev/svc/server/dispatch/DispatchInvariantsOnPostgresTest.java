package dev.svc.server.dispatch;

import dev.svc.server.faults.ThrowawayPostgres;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The dispatch rules of {@link DispatchInvariantsTest}, each on a database of its own in a real
 * PostgreSQL (the clustered deployment's store): the constraints and transactions that hold them
 * must hold there too.
 */
class DispatchInvariantsOnPostgresTest extends DispatchInvariantsTest {

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

  @BeforeEach
  void newDatabase() throws Exception {
    url = postgres.newDatabase("dispatch_" + DATABASES.incrementAndGet());
  }

  @Override
  String databaseUrl() {
    return url;
  }
}
