package dev.svc.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OnEventLoopTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void everyStepOfAChainBuiltOnAnotherThreadRunsOnAnEventLoop() throws Exception {
    List<String> threads = new ArrayList<>();
    // the first future is complete before the chain is built: its step must still run on a loop
    String answer = await(OnEventLoop.call(vertx, () -> {
      threads.add(onLoop());
      return Future.succeededFuture("a").compose(a -> {
        threads.add(onLoop());
        return vertx.timer(1).map(t -> a + "b");
      }).map(ab -> {
        threads.add(onLoop());
        return ab;
      });
    }));
    assertThat(answer).isEqualTo("ab");
    assertThat(threads).containsExactly("loop", "loop", "loop");
  }

  @Test
  void aFailureToBuildTheChainFailsItsFuture() {
    Future<String> failed = OnEventLoop.call(vertx, () -> {
      throw new IllegalStateException("cannot build");
    });
    assertThat(failed.toCompletionStage().toCompletableFuture()).failsWithin(30, TimeUnit.SECONDS)
        .withThrowableThat().withMessageContaining("cannot build");
  }

  @Test
  void onAnEventLoopTheChainIsBuiltAtOnce() throws Exception {
    java.util.concurrent.CompletableFuture<Boolean> builtAtOnce = new java.util.concurrent.CompletableFuture<>();
    vertx.runOnContext(v -> {
      boolean[] built = new boolean[1];
      OnEventLoop.call(vertx, () -> {
        built[0] = true;
        return Future.succeededFuture();
      });
      builtAtOnce.complete(built[0]);
    });
    assertThat(builtAtOnce.get(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void responseBodiesReadThroughItAreNeverLost() throws Exception {
    HttpServer server = await(vertx.createHttpServer().requestHandler(r -> r.response().end("body " + r.path()))
        .listen(0, "127.0.0.1"));
    HttpClientAgent client = vertx.createHttpClient();
    for (int i = 0; i < 300; i++) {
      String path = "/" + i;
      String body = await(OnEventLoop.call(vertx, () -> client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", path)
          .compose(r -> r.send()).compose(r -> r.body()).map(Object::toString)));
      assertThat(body).isEqualTo("body " + path);
    }
  }

  private static String onLoop() {
    return Context.isOnEventLoopThread() ? "loop" : Thread.currentThread().getName();
  }
}
