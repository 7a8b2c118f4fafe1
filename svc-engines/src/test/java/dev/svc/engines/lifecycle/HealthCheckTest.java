package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.svc.engines.HealthSuccess;
import dev.svc.engines.fixtures.RecordingSink;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The health wait against a real HTTP endpoint that answers like Ollama's /api/tags while it
 * starts: 503, then 200 with no model, then 200 with the imported model.
 */
class HealthCheckTest {

  private HttpServer server;
  private final RecordingSink log = new RecordingSink();

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private URI serve(List<Answer> answers) throws IOException {
    AtomicInteger calls = new AtomicInteger();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    server.createContext("/api/tags", exchange -> {
      Answer answer = answers.get(Math.min(calls.getAndIncrement(), answers.size() - 1));
      byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(answer.status(), body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/tags");
  }

  private record Answer(int status, String body) {}

  private static HealthCheck check(Duration timeout) {
    return new HealthCheck(HttpClient.newHttpClient(), new HealthPolicy(Duration.ofMillis(10), Duration.ofMillis(40), timeout));
  }

  @Test
  void waitsThrough503AndAnEmptyModelListWithDoublingIntervals() throws Exception {
    URI url = serve(List.of(
        new Answer(503, "{}"), new Answer(503, "{}"),
        new Answer(200, "{\"models\":[]}"), new Answer(200, "{\"models\":[]}"),
        new Answer(200, "{\"models\":[{\"name\":\"tiny:latest\"}]}")));

    Optional<HealthCheck.Failure> failure =
        check(Duration.ofSeconds(10)).await(url, HealthSuccess.STATUS_200_WITH_MODEL_LIST, Optional::empty, log);

    assertThat(failure).isEmpty();
    assertThat(log.lines()).containsExactly(
        "[health] " + url + ": 503 (still loading); checking again in 10 ms",
        "[health] " + url + ": 503 (still loading); checking again in 20 ms",
        "[health] " + url + ": 200 without any model listed yet; checking again in 40 ms",
        "[health] " + url + ": 200 without any model listed yet; checking again in 40 ms",
        log.lines().get(4));
    assertThat(log.lines().get(4)).startsWith("[health] " + url + " answered 200 after 5 check(s), ")
        .endsWith(": the engine is ready");
  }

  @Test
  void aPlain200RuleIsReadyAtTheFirst200() throws Exception {
    URI url = serve(List.of(new Answer(503, "{}"), new Answer(200, "{\"models\":[]}")));

    assertThat(check(Duration.ofSeconds(10)).await(url, HealthSuccess.STATUS_200, Optional::empty, log)).isEmpty();
    assertThat(log.lines()).hasSize(2);
  }

  @Test
  void timesOutWithTheLastAnswer() throws Exception {
    URI url = serve(List.of(new Answer(503, "{}")));

    Optional<HealthCheck.Failure> failure =
        // 2 s: more than 3 checks 10-40 ms apart even where each local request takes hundreds of ms
        check(Duration.ofSeconds(2)).await(url, HealthSuccess.STATUS_200, Optional::empty, log);

    assertThat(failure).get().isInstanceOfSatisfying(HealthCheck.TimedOut.class, timedOut -> {
      assertThat(timedOut.lastAnswer()).isEqualTo("503 (still loading)");
      assertThat(timedOut.attempts()).isGreaterThan(3);
    });
  }

  @Test
  void aStoppedContainerEndsTheWaitAtOnce() throws Exception {
    URI url = URI.create("http://127.0.0.1:9/health");

    Optional<HealthCheck.Failure> failure = check(Duration.ofSeconds(30))
        .await(url, HealthSuccess.STATUS_200, () -> Optional.of("exited with code 1"), log);

    assertThat(failure).contains(new HealthCheck.Exited("exited with code 1"));
    assertThat(log.lines()).isEmpty();
  }
}
