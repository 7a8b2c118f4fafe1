package dev.svc.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** What the load runner does between the warmup and the measured requests. */
class LoadRunnerTest extends VertxTest {

  private static long collections() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
  }

  @Test
  void theWarmupsGarbageIsCollectedBeforeTheFirstMeasuredRequest() throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(1, 1, 4)));
    LoadRunner runner = new LoadRunner(vertx, new StreamingClient(vertx, "127.0.0.1", emulator.port(), 4, 10_000));
    // the collections counted so far as each request is built: warmup requests are -3 to -1
    Map<Integer, Long> seen = new ConcurrentHashMap<>();
    LoadRunner.Run run = await(runner.run(LoadModel.concurrency(2), 4, 3, 1, i -> {
      seen.put(i, collections());
      return RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
          GenerationRequest.completion(EngineEmulator.MODEL_ID, "request " + i, 4));
    }));

    assertThat(run.warmup()).hasSize(3).allMatch(RequestRecord::ok);
    assertThat(run.measured()).hasSize(4).allMatch(RequestRecord::ok);
    assertThat(seen.get(0)).as("collections counted by the first measured request")
        .isGreaterThan(seen.get(-1));
    await(emulator.close());
  }
}
