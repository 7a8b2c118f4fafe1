package dev.svc.bench.perf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The clock stamps the load-generator benchmark reads its client's delay per chunk from. */
class EmulatorStampsTest extends VertxTest {

  @Test
  void everyStreamedTokenCarriesTheEmulatorsClockWhenItWasWritten() throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(5, 2, 8).withStamps()));
    StreamingClient client = new StreamingClient(vertx, "127.0.0.1", emulator.port(), 4, 10_000);
    List<RequestRecord> records = await(new LoadRunner(vertx, client).run(LoadModel.concurrency(2), 6, 0, 1,
        i -> RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
            GenerationRequest.completion(EngineEmulator.MODEL_ID, "hello", 8)))).measured();
    for (RequestRecord r : records) {
      assertThat(r.ok()).as(r.error()).isTrue();
      long[] stamps = Arrays.stream(r.text().trim().split(" ")).mapToLong(Long::parseLong).toArray();
      assertThat(stamps).hasSize(8).isSorted();
      assertThat(r.chunks()).hasSize(8);
      for (int i = 0; i < stamps.length; i++) {
        // written no earlier than it was due (5 ms, then every 2 ms, from the request's arrival),
        // and received after it was written
        assertThat(stamps[i] - r.send()).isGreaterThanOrEqualTo((5 + 2L * i) * 1_000_000L);
        assertThat(stamps[i]).isLessThanOrEqualTo(r.chunks()[i]);
      }
    }
    LoadGeneratorBenchmark.ChunkDelays delays = LoadGeneratorBenchmark.ChunkDelays.of(records,
        LoadGeneratorBenchmark.OpenStreams.of(records), 1);
    assertThat(delays.fullLoadChunks()).isEqualTo(6 * 8);
    assertThat(delays.all().min()).isGreaterThanOrEqualTo(0);
    await(client.close());
  }

  @Test
  void openStreamsCountsRequestsBetweenTheirSendAndEnd() {
    List<RequestRecord> records = List.of(record(10, 50), record(20, 30), record(40, 60));
    LoadGeneratorBenchmark.OpenStreams open = LoadGeneratorBenchmark.OpenStreams.of(records);
    assertThat(open.at(5)).isZero();
    assertThat(open.at(10)).isEqualTo(1);
    assertThat(open.at(25)).isEqualTo(2);
    assertThat(open.at(30)).isEqualTo(1);
    assertThat(open.at(45)).isEqualTo(2);
    assertThat(open.at(70)).isZero();
    assertThat(open.peak()).isEqualTo(2);
  }

  private static RequestRecord record(long send, long end) {
    return new RequestRecord(RequestRecord.UNSCHEDULED, send, new long[0], end, 0, 0, RequestRecord.TokenSource.USAGE, "",
        null);
  }
}
