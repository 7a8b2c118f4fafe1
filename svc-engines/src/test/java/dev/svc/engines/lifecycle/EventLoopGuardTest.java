package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.engines.EngineCatalog;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The blocking lifecycle refuses to run on a Vert.x event-loop thread, before touching anything. */
class EventLoopGuardTest {

  @Test
  void runOnAnEventLoopThreadIsRefused() throws Exception {
    EngineLaunch launch = EngineLaunch.builder(EngineCatalog.defaults().find("llama_cpp").orElseThrow(),
        Path.of("/models/tiny.gguf")).build();
    CompletableFuture<Throwable> refused = new CompletableFuture<>();
    Thread eventLoop = new Thread(() -> {
      try (EngineLifecycle lifecycle = EngineLifecycle.connect()) {
        lifecycle.run(launch, line -> { }, engine -> null);
        refused.complete(null);
      } catch (Throwable e) {
        refused.complete(e);
      }
    }, "vert.x-eventloop-thread-0");
    eventLoop.start();

    assertThat(refused.get(30, TimeUnit.SECONDS))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("The engine lifecycle blocks: run it on a worker thread (executeBlocking), not on "
            + "vert.x-eventloop-thread-0.");
  }
}
