package dev.svc.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.bench.measure.RunMetrics;
import dev.svc.bench.measure.Slo;
import dev.svc.bench.run.SuiteRun;
import dev.svc.core.metrics.DistributionSummary;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import dev.svc.engines.codec.ServerTimings;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The measurement core against the emulator, whose timing is the ground truth (issue 6, acceptance 1 and 2). */
class MeasurementAccuracyTest extends VertxTest {

  private EngineEmulator emulator;
  private StreamingClient client;
  /**
   * The emulator's own Vert.x, as in a process of its own: on the client's, the emulator's event
   * loop would also carry some of the client's connections, and read requests late while it
   * served them.
   */
  private Vertx emulatorVertx;

  @BeforeEach
  void start() throws Exception {
    emulatorVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    emulator = await(EngineEmulator.start(emulatorVertx, EmulatorOptions.instant(0).withTiming(50, 10, 64).withStamps()), 10);
    client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", emulator.port(), 30_000);
    SuiteRun.compileRequestPath(vertx); // the client's and the emulator's code: one JVM, one JIT
  }

  @AfterEach
  void stopEmulator() throws Exception {
    await(emulatorVertx.close(), 10);
  }

  private static RequestSpec completion(int i) {
    return RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
        GenerationRequest.completion(EngineEmulator.MODEL_ID, "count to ten " + i, 128));
  }

  private List<RequestRecord> run(LoadModel model, int count) throws Exception {
    LoadRunner.Run run = await(new LoadRunner(vertx, client).run(model, count, 2, 42, MeasurementAccuracyTest::completion),
        120);
    assertThat(run.warmup()).hasSize(2);
    assertThat(run.measured()).hasSize(count).allSatisfy(r -> assertThat(r.error()).isNull());
    return run.measured();
  }

  private JsonObject measure(LoadModel model, int count) throws Exception {
    return RunMetrics.of(run(model, count), Slo.NONE);
  }

  /**
   * The client's TTFT and TPOT against what the emulator did, request by request. The emulator
   * (in this JVM, on one monotonic clock) writes into each token the time it wrote it: the client's
   * own error on the first token is its arrival time minus that stamp, the way through the kernel
   * and the client — within ±2 ms at the median (issue 6's bound), on a machine of any speed. How
   * long the emulator took to read the request and how late its timer fired are the engine's
   * latency, which the client rightly counts in TTFT; they are not its error, so they are not
   * bounded here (EmulatorLatenessTest shows the emulator reports them). The decode time (E2E -
   * TTFT) is compared with the emulator's predicted_ms per token within ±0.5 ms. Causality holds
   * for every request: no first token was written before its request was sent plus the planned 50 ms.
   */
  private static JsonObject assertTheClientMeasuresWhatTheEmulatorDid(List<RequestRecord> records) {
    double[] ttftError = new double[records.size()];
    double[] tpotError = new double[records.size()];
    for (int i = 0; i < records.size(); i++) {
      RequestRecord r = records.get(i);
      ServerTimings emulator = r.server();
      assertThat(emulator).as("the emulator's timings of request %d", i).isNotNull();
      assertThat(emulator.promptMs()).as("the emulator is never early").isGreaterThanOrEqualTo(50.0);
      long firstWritten = Long.parseLong(r.text().trim().split(" ")[0]);
      assertThat((firstWritten - r.send()) / 1e6).as("request %d: first token written after send + 50 ms", i)
          .isGreaterThanOrEqualTo(50.0);
      ttftError[i] = (r.chunks()[0] - firstWritten) / 1e6;
      tpotError[i] = r.tpotMs() - emulator.perTokenMs();
    }
    double ttft = DistributionSummary.of(ttftError).p50();
    double tpot = DistributionSummary.of(tpotError).p50();
    assertThat(ttft).as("median of the first chunk's arrival - the emulator's write stamp (ms)")
        .isCloseTo(0.0, within(2.0));
    assertThat(tpot).as("median of TPOT - the emulator's time per token (ms)").isCloseTo(0.0, within(0.5));
    JsonObject metrics = RunMetrics.of(records, Slo.NONE);
    assertThat(metrics.getJsonObject(MetricKeys.SERVER_TIMINGS).getInteger("requests")).isEqualTo(records.size());
    return metrics;
  }

  @Test
  void sequentialTtftAndTpotMatchTheEmulatorsTiming() throws Exception {
    JsonObject metrics = assertTheClientMeasuresWhatTheEmulatorDid(run(LoadModel.SEQUENTIAL, 20));
    assertThat(metrics.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(20L * 64);
    assertThat(metrics.getString(MetricKeys.TOKEN_COUNT_SOURCE)).isEqualTo(MetricKeys.TOKEN_COUNT_USAGE);
    assertThat(metrics.getLong(MetricKeys.TOTAL_ITERATIONS)).isEqualTo(20);
  }

  @Test
  void sixteenConcurrentStreamsKeepTheirTiming() throws Exception {
    JsonObject metrics = assertTheClientMeasuresWhatTheEmulatorDid(run(LoadModel.concurrency(16), 64));
    assertThat(metrics.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(64L * 64);
  }

  @Test
  void poissonLoadAchievesItsRateAndReportsScheduleLag() throws Exception {
    JsonObject metrics = measure(LoadModel.poisson(50), 1000); // 20 s at 50/s
    assertThat(metrics.getDouble(MetricKeys.ACHIEVED_RATE)).isCloseTo(50.0, within(2.5));
    JsonObject lag = metrics.getJsonObject(MetricKeys.QUEUEING_DELAY_MS);
    assertThat(lag).isNotNull();
    // how small the lag is depends on the machine: the load-generator benchmark measures it; here it must be reported
    assertThat(lag.getDouble(MetricKeys.MIN)).isGreaterThanOrEqualTo(0.0);
    assertThat(lag.getDouble(MetricKeys.P99)).isGreaterThanOrEqualTo(lag.getDouble(MetricKeys.P50));
    assertThat(lag.fieldNames()).contains(MetricKeys.P50, MetricKeys.P90, MetricKeys.P95, MetricKeys.P99, MetricKeys.MAX);
    assertThat(metrics.getJsonObject(MetricKeys.LATENCY_FROM_SCHEDULE_MS).getDouble(MetricKeys.P50))
        .isGreaterThanOrEqualTo(metrics.getJsonObject(MetricKeys.E2E_MS).getDouble(MetricKeys.P50));
  }

  @Test
  void aStallOfTheEngineShowsInLatencyFromSchedule() throws Exception {
    vertx.setTimer(1500, t -> emulator.stall(Duration.ofSeconds(2)));
    JsonObject metrics = measure(LoadModel.poisson(50), 250); // 5 s at 50/s, stalled from 1.5 s to 3.5 s
    JsonObject fromSchedule = metrics.getJsonObject(MetricKeys.LATENCY_FROM_SCHEDULE_MS);
    assertThat(fromSchedule.getDouble(MetricKeys.MAX)).isGreaterThan(1900.0);
    assertThat(fromSchedule.getDouble(MetricKeys.P90)).isGreaterThan(1000.0);
    // Without the stall every request takes about 50 + 63 × 10 = 680 ms.
    assertThat(metrics.getJsonObject(MetricKeys.E2E_MS).getDouble(MetricKeys.MIN)).isCloseTo(680.0, within(20.0));
  }
}
