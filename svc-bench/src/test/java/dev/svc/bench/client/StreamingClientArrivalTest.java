package dev.svc.bench.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * When many streams' chunks are read at once on one event loop (a burst of first tokens, or
 * streams in step), each chunk's arrival time is when it was read, not when the chunks read before
 * it on that loop had been parsed.
 */
class StreamingClientArrivalTest extends VertxTest {

  private static final int STREAMS = 8;
  /** Parsing a content line takes this long here, on purpose: far longer than reading one on any machine. */
  private static final long PARSE_MS = 50;

  /** The engine's decoder, made slow on lines with text; it counts the comment line each stream opens with. */
  private static StreamDecoder slow(GenerationRequest request, CountDownLatch opened) {
    StreamDecoder codec = new CodecDecoder(EngineCodec.forApi(RequestApi.OPENAI), request);
    return new StreamDecoder() {
      @Override
      public Chunk line(String line) {
        if (line.startsWith(":")) {
          opened.countDown();
        }
        Chunk chunk = codec.line(line);
        if (chunk != null && !chunk.text().isEmpty()) {
          long until = System.nanoTime() + PARSE_MS * 1_000_000;
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
        }
        return chunk;
      }

      @Override
      public Chunk whole(JsonObject body) {
        return codec.whole(body);
      }
    };
  }

  @Test
  void chunksReadTogetherAreStampedWhenReadNotAfterTheOthersWereParsed() throws Exception {
    // The server in a Vert.x of its own, and the client on one event loop that every stream shares.
    Vertx serverVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    Vertx clientVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    try {
      List<HttpServerResponse> waiting = new CopyOnWriteArrayList<>();
      HttpServer server = await(serverVertx.createHttpServer().requestHandler(request -> request.body().onSuccess(b -> {
        HttpServerResponse response = request.response().setChunked(true).putHeader("Content-Type", "text/event-stream");
        response.write(": open\n\n"); // the head and a comment now, the token later
        waiting.add(response);
      })).listen(0, "127.0.0.1"));
      CountDownLatch opened = new CountDownLatch(STREAMS);
      StreamingClient client = StreamingClient.connectionPerRequest(clientVertx, "127.0.0.1", server.actualPort(), 30_000);
      List<Future<RequestRecord>> sent = new ArrayList<>();
      for (int i = 0; i < STREAMS; i++) {
        GenerationRequest request = GenerationRequest.completion("m", "p" + i, 1);
        RequestSpec spec = RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI), request);
        sent.add(client.send(new RequestSpec(spec.path(), spec.body(), true, slow(request, opened)),
            RequestRecord.UNSCHEDULED));
      }
      assertThat(opened.await(30, TimeUnit.SECONDS)).as("every stream open on the client").isTrue();

      // Hold the client's loop while the server writes every stream's token, so that all of them
      // are waiting to be read when the loop comes back.
      AtomicBoolean holding = new AtomicBoolean();
      AtomicBoolean written = new AtomicBoolean();
      clientVertx.runOnContext(v -> {
        holding.set(true);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!written.get() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      });
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!holding.get() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      serverVertx.runOnContext(v -> {
        for (HttpServerResponse response : waiting) {
          response.end("data: {\"choices\":[{\"text\":\" a\"}]}\n\ndata: [DONE]\n\n");
        }
        written.set(true);
      });
      List<RequestRecord> records = new ArrayList<>();
      for (Future<RequestRecord> f : sent) {
        records.add(await(f));
      }

      assertThat(records).allSatisfy(r -> {
        assertThat(r.error()).isNull();
        assertThat(r.text()).isEqualTo(" a");
      });
      long[] arrivals = records.stream().mapToLong(RequestRecord::first).sorted().toArray();
      double spanMs = (arrivals[STREAMS - 1] - arrivals[0]) / 1e6;
      // Stamped after the parsing of those read before them, they would lie PARSE_MS apart at least,
      // (STREAMS - 1) × PARSE_MS in all.
      assertThat(spanMs).as("ms between the first and the last stream's token arrival, of %s", Arrays.toString(arrivals))
          .isLessThan(PARSE_MS);
      await(client.close());
    } finally {
      await(clientVertx.close(), 10);
      await(serverVertx.close(), 10);
    }
  }
}
