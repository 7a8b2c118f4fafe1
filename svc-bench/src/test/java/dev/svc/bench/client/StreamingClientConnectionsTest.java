package dev.svc.bench.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's two ways of connecting, seen from a real HTTP server that counts its connections:
 * {@code svc run}'s connection per request (opened for the request, closed when it ends) and the pool.
 */
class StreamingClientConnectionsTest {

  private static final int REQUESTS = 30;
  private static final int WORKERS = 6;

  private Vertx vertx;
  private HttpServer server;
  private final AtomicInteger opened = new AtomicInteger();
  private final CountDownLatch allClosed = new CountDownLatch(REQUESTS);

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer()
        .connectionHandler(connection -> {
          opened.incrementAndGet();
          connection.closeHandler(v -> allClosed.countDown());
        })
        .requestHandler(request -> request.body().onSuccess(body -> request.response().setChunked(true)
            .putHeader("Content-Type", "text/event-stream")
            .end("data: {\"choices\":[{\"text\":\" a\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,"
                + "\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")))
        .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private List<RequestRecord> run(StreamingClient client) throws Exception {
    LoadRunner.Run run = new LoadRunner(vertx, client).run(LoadModel.concurrency(WORKERS), REQUESTS, 0, 1,
        i -> RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI), GenerationRequest.completion("m", "p" + i, 1)))
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
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
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    RequestRecord record = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", port, 10_000)
        .send(RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI), GenerationRequest.completion("m", "p", 1)),
            RequestRecord.UNSCHEDULED)
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(record.error()).startsWith("Cannot connect to 127.0.0.1:" + port);
  }
}
