package dev.svc.bench.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A load abandoned when its engine died: svc run closes the client while the load still sends.
 * Such a request is a failed record, never an exception on the event loop (it printed a stack
 * trace into the test's log).
 */
class StreamingClientClosedTest extends VertxTest {

  @Test
  void aRequestSentAfterCloseIsAFailedRecordNotAnExceptionOnTheEventLoop() throws Exception {
    List<Throwable> unhandled = new CopyOnWriteArrayList<>();
    vertx.exceptionHandler(unhandled::add);
    StreamingClient client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", 9, 10_000);
    await(client.close(), 10);

    RequestRecord record = await(client.send(RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
        GenerationRequest.completion("m", "p", 1)), RequestRecord.UNSCHEDULED), 10);

    assertThat(record.error()).startsWith("Cannot connect to 127.0.0.1:9").contains("closed");
    assertThat(unhandled).isEmpty();
  }
}
