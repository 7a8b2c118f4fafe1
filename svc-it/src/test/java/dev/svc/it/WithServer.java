package dev.svc.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A test class whose tests share one real {@code svc web} ({@link ServerProcess}), started before them and closed after. */
abstract class WithServer {

  static ServerProcess server;

  @BeforeAll
  static void startServer() {
    server = ServerProcess.start();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
