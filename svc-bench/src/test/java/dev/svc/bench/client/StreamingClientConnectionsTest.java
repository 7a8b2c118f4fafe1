package dev.svc.bench.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's two ways of connecting, seen from a real HTTP server that counts its connections:
 * {@code svc run}'s connection per request (opened for the request, closed when it ends) and the pool.
 */
class StreamingClientConnectionsTest extends VertxTest {

  private static final int REQUESTS = 30;
  private static final int WORKERS = 6;

  private HttpServer server;
  private final AtomicInteger opened = new AtomicInteger();
  private final CountDownLatch allClosed = new CountDownLatch(REQUESTS);

  @BeforeEach
  void start() throws Exception {
    server = await(vertx.createHttpServer()
        .connectionHandler(connection -> {
          opened.incrementAndGet();
          connection.closeHandler(v -> allClosed.countDown());
        })
        .requestHandler(request -> request.body().onSuccess(body -> request.response().setChunked(true)
            .putHeader("Content-Type", "text/event-stream")
            .end("data: {\"choices\":[{\"text\":\" a\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,"
                + "\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")))
        .listen(0, "127.0.0.1"), 10);
  }

  private List<RequestRecord> run(StreamingClient client) throws Exception {
    LoadRunner.Run run = await(new LoadRunner(vertx, client).run(LoadModel.concurrency(WORKERS), REQUESTS, 0, 1,
        i -> RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI), GenerationRequest.completion("m", "p" + i, 1))));
    return run.measured();
  }

  @Test
  void aConnectionPerRequestIsOpenedForEachRequestAndClosedWhenItEnds() throws Exception {
    List<RequestRecord> records = run(StreamingClient.connectionPerRequest(vertx, "127.0.0.1", server.actualPort(), 10_000));

    assertThat(records).hasSize(REQUESTS).allSatisfy(r -> {
      assertThat(r.error()).isNull();
      assertThat(r.text()).isEqualTo(" a");
      assertThat(r.outputTokens()).isEqualTo(1);
    });
    assertThat(allClosed.await(10, TimeUnit.SECONDS)).as("every connection closed").isTrue();
    assertThat(opened.get()).isEqualTo(REQUESTS);
  }

  @Test
  void thePoolKeepsItsConnectionsForTheNextRequests() throws Exception {
    List<RequestRecord> records = run(new StreamingClient(vertx, "127.0.0.1", server.actualPort(), WORKERS, 10_000));

    assertThat(records).hasSize(REQUESTS).allSatisfy(r -> assertThat(r.error()).isNull());
    assertThat(opened.get()).isBetween(1, WORKERS);
    assertThat(allClosed.getCount()).isEqualTo(REQUESTS);
  }

  @Test
  void aRefusedConnectionIsARecordWithTheReason() throws Exception {
    int port = server.actualPort();
    await(server.close(), 10);
    RequestRecord record = await(StreamingClient.connectionPerRequest(vertx, "127.0.0.1", port, 10_000)
        .send(RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI), GenerationRequest.completion("m", "p", 1)),
            RequestRecord.UNSCHEDULED), 10);

    assertThat(record.error()).startsWith("Cannot connect to 127.0.0.1:" + port);
  }

  @Test
  void connectionsTakeTheEventLoopsInTurnSoABusyCallerDelaysNoneOfTheOtherStreams() throws Exception {
    // The emulator in a Vert.x of its own, so that blocking the client's loop cannot hold it up.
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(20, 20, 30)), 10);
    Vertx clientVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    try {
      StreamingClient client = StreamingClient.connectionPerRequest(clientVertx, "127.0.0.1", emulator.port(), 10_000);
      Context caller = clientVertx.getOrCreateContext();
      List<Boolean> answeredOnCaller = new CopyOnWriteArrayList<>();
      List<RequestRecord> records = await(caller.<List<RequestRecord>>executeBlocking(() -> null).compose(v -> {
        List<Future<RequestRecord>> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          sent.add(client.send(RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
              GenerationRequest.completion(EngineEmulator.MODEL_ID, "p" + i, 30)), RequestRecord.UNSCHEDULED)
              .onComplete(r -> answeredOnCaller.add(Vertx.currentContext() == caller)));
        }
        // Mid-stream, the caller's own event loop is busy for 400 ms.
        clientVertx.setTimer(200, t -> {
          long until = System.nanoTime() + 400_000_000L;
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
        });
        return Future.all(sent).map(all -> all.<RequestRecord>list());
      }), 30);

      assertThat(records).allSatisfy(r -> {
        assertThat(r.error()).isNull();
        assertThat(r.outputTokens()).isEqualTo(30);
      });
      assertThat(answeredOnCaller).containsExactly(true, true, true, true);
      List<Double> longestGaps = records.stream().map(r -> Arrays.stream(r.gapsMs()).max().orElseThrow()).toList();
      assertThat(longestGaps).as("the streams on the busy loop saw it, the others did not: %s", longestGaps)
          .anySatisfy(gap -> assertThat(gap).isGreaterThan(300))
          .anySatisfy(gap -> assertThat(gap).isLessThan(200));
    } finally {
      await(clientVertx.close(), 10);
    }
  }
}
