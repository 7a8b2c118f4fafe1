package dev.svc.bench.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadProgress;
import dev.svc.bench.load.LoadRunner;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** The progress line svc run draws, and the counts the load runner gives it. */
class ProgressTest extends VertxTest {

  private static RequestSpec request(int i) {
    return RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
        GenerationRequest.completion(EngineEmulator.MODEL_ID, "count " + i, 4));
  }

  @Test
  void theLineShowsWarmupThenRequestsDoneErrorsElapsedTimeAndTheStep() {
    assertThat(Ticker.line("throughput", new LoadProgress.Snapshot("", 2, 5, 0, 20, 0), 3))
        .isEqualTo("      [------------------------------] warmup 2/5, 0:03  throughput");
    assertThat(Ticker.line("throughput", new LoadProgress.Snapshot("", 5, 5, 10, 20, 1), 65))
        .isEqualTo("      [###############---------------] 10/20 requests, 1 error, 1:05  throughput");
    assertThat(Ticker.line("latency", new LoadProgress.Snapshot("step 3/6 poisson:32.1", 0, 0, 7, 30, 2), 3725))
        .isEqualTo("      [#######-----------------------] 7/30 requests, 2 errors, 1:02:05  latency, step 3/6 poisson:32.1");
    assertThat(Ticker.line("memory", new LoadProgress.Snapshot("", 0, 0, 20, 20, 0), 9))
        .isEqualTo("      [##############################] 20/20 requests, 0 errors, 0:09  memory");
    // a run that has not begun has nothing to fill
    assertThat(Ticker.line("memory", new LoadProgress.Snapshot("", 0, 0, 0, 0, 0), 0))
        .isEqualTo("      [------------------------------] 0/0 requests, 0 errors, 0:00  memory");
  }

  @Test
  void theRunnerCountsEveryMeasuredRequestAndEveryFailureOnce() throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(1, 1, 4)));
    StreamingClient client = new StreamingClient(vertx, "127.0.0.1", emulator.port(), 8, 10_000);
    LoadProgress progress = new LoadProgress();
    LoadRunner runner = new LoadRunner(vertx, client, progress);

    await(runner.run(LoadModel.concurrency(4), 25, 3, 1, ProgressTest::request));
    assertThat(progress.snapshot()).isEqualTo(new LoadProgress.Snapshot("", 3, 3, 25, 25, 0));

    // a new run restarts the counts of completed requests
    progress.stage("second");
    await(runner.run(LoadModel.rate(200), 20, 0, 1, ProgressTest::request));
    assertThat(progress.snapshot()).isEqualTo(new LoadProgress.Snapshot("second", 0, 0, 20, 20, 0));
    assertThat(emulator.served()).isEqualTo(3 + 25 + 20);

    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    StreamingClient nowhere = new StreamingClient(vertx, "127.0.0.1", closed, 4, 10_000);
    LoadProgress failing = new LoadProgress();
    LoadRunner.Run run = await(new LoadRunner(vertx, nowhere, failing).run(LoadModel.SEQUENTIAL, 6, 2, 1,
        ProgressTest::request));
    assertThat(run.measured()).hasSize(6).noneMatch(r -> r.ok());
    // warmup failures are not measured, so they are not counted as errors
    assertThat(failing.snapshot()).isEqualTo(new LoadProgress.Snapshot("", 2, 2, 6, 6, 6));
  }
}
