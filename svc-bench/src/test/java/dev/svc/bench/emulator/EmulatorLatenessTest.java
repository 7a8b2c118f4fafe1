package dev.svc.bench.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.core.OnEventLoop;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The emulator's account of its own lateness: {@code GET /stats}, and the llama.cpp-style
 * {@code timings} of each streamed answer that {@code svc run} records as the engine's own.
 */
class EmulatorLatenessTest extends VertxTest {

  private static final double TTFT_MS = 1000;
  private static final double BLOCK_MS = 1500;
  private static final long STALL_MS = 1500;

  /** The emulator in a Vert.x of its own with one event loop, so that the test can hold that loop and nothing else. */
  private Vertx emulatorVertx;

  @BeforeEach
  void emulatorVertx() {
    emulatorVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
  }

  @AfterEach
  void closeEmulatorVertx() throws Exception {
    await(emulatorVertx.close(), 10);
  }

  private static RequestSpec request(int tokens) {
    return RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
        GenerationRequest.completion(EngineEmulator.MODEL_ID, "hello", tokens));
  }

  private JsonObject stats(EngineEmulator emulator) throws Exception {
    return await(OnEventLoop.call(vertx, () -> vertx.createHttpClient()
        .request(HttpMethod.GET, emulator.port(), "127.0.0.1", "/stats")
        .compose(r -> r.send()).compose(r -> r.body()).map(b -> b.toJsonObject())));
  }

  @Test
  void anEmulatorHeldUpWritesLateAndSaysSo() throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(emulatorVertx,
        EmulatorOptions.instant(0).withTiming(TTFT_MS, 5, 4)));
    StreamingClient client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", emulator.port(), 30_000);
    Future<RequestRecord> answer = client.send(request(4), RequestRecord.UNSCHEDULED);
    // Once the emulator has the request (its first token is then due TTFT_MS later), its only event
    // loop is held for BLOCK_MS, as a busy core would hold it: the first token goes out at least
    // BLOCK_MS - TTFT_MS late, however fast the machine, as long as the hold starts within TTFT_MS.
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (emulator.served() == 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    emulatorVertx.runOnContext(v -> {
      long until = System.nanoTime() + (long) (BLOCK_MS * 1e6);
      while (System.nanoTime() < until) {
        Thread.onSpinWait();
      }
    });
    RequestRecord record = await(answer);

    assertThat(record.error()).isNull();
    JsonObject stats = stats(emulator);
    assertThat(stats.getLong("requests")).isEqualTo(1);
    JsonObject first = stats.getJsonObject("first_token_late_ms");
    assertThat(first.getLong("count")).isEqualTo(1);
    assertThat(first.getDouble("max")).isGreaterThanOrEqualTo(BLOCK_MS - TTFT_MS);
    JsonObject tokens = stats.getJsonObject("token_late_ms");
    assertThat(tokens.getLong("count")).isEqualTo(4);
    assertThat(tokens.getDouble("max")).isGreaterThanOrEqualTo(first.getDouble("max"));
    assertThat(tokens.getDouble("p50")).isLessThanOrEqualTo(tokens.getDouble("p99")).isLessThanOrEqualTo(tokens.getDouble("max"));
    // and its event loop's lag, which a request arriving during the hold would have waited to be read
    assertThat(stats.getJsonObject("loop_lag_ms").getDouble("max")).isGreaterThanOrEqualTo(BLOCK_MS / 2);
    // its timings, as svc run records them: prompt_ms is the TTFT it planned plus its lateness
    assertThat(record.server()).isNotNull();
    assertThat(record.server().predictedTokens()).isEqualTo(4);
    assertThat(record.server().promptMs()).isGreaterThanOrEqualTo(BLOCK_MS);
    assertThat(record.ttftMs()).isGreaterThanOrEqualTo(record.server().promptMs());
    assertThat(emulator.lateness().brief()).startsWith("1 requests; first token late p50 ");
    await(client.close());
  }

  @Test
  void aStallItWasAskedForIsPartOfItsPlanNotLateness() throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(emulatorVertx, EmulatorOptions.instant(0).withTiming(10, 5, 4)));
    StreamingClient client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", emulator.port(), 30_000);
    long stalled = System.nanoTime();
    emulator.stall(Duration.ofMillis(STALL_MS));
    RequestRecord record = await(client.send(request(4), RequestRecord.UNSCHEDULED));

    assertThat(record.error()).isNull();
    assertThat(record.chunks()[0] - stalled).as("first token after the stall, in ns").isGreaterThanOrEqualTo(STALL_MS * 1_000_000);
    // planned from the end of the stall: late only by what it could not help, far less than the stall
    assertThat(stats(emulator).getJsonObject("first_token_late_ms").getDouble("max")).isLessThan(STALL_MS / 2.0);
    await(client.close());
  }

  @Test
  void itsWindowsCountWhatWasServedSinceThePreviousOne() throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(emulatorVertx, EmulatorOptions.instant(0).withTiming(1, 1, 3)));
    StreamingClient client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", emulator.port(), 30_000);
    await(client.send(request(3), RequestRecord.UNSCHEDULED));
    await(client.send(request(3), RequestRecord.UNSCHEDULED));
    EngineEmulator.LatenessReport window = emulator.window();
    await(client.send(request(3), RequestRecord.UNSCHEDULED));

    assertThat(window.requests()).isEqualTo(2);
    assertThat(window.firstToken().count()).isEqualTo(2);
    assertThat(window.token().count()).isEqualTo(6);
    assertThat(emulator.window().token().count()).isEqualTo(3);
    assertThat(emulator.lateness().requests()).isEqualTo(3);
    assertThat(emulator.lateness().token().count()).isEqualTo(9);
    await(client.close());
  }
}
