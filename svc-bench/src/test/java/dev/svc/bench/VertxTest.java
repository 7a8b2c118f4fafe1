package dev.svc.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A Vert.x instance for each test, created before the test's own {@code @BeforeEach} and closed
 * after its {@code @AfterEach}, and a bounded wait on futures.
 */
public abstract class VertxTest {

  protected Vertx vertx;

  @BeforeEach
  void createVertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void closeVertx() throws Exception {
    await(vertx.close(), 10);
  }

  /** The future's result, waiting at most 30 s. */
  protected static <T> T await(Future<T> future) throws Exception {
    return await(future, 30);
  }

  protected static <T> T await(Future<T> future, int seconds) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
  }
}
