package dev.svc.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.core.OnEventLoop;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code svc engines emulate}, run as a user runs it: its own process, served until it is stopped. */
class EmulateCommandTest {

  private static final Pattern READY = Pattern.compile("Emulating an OpenAI-compatible engine on http://127\\.0\\.0\\.1:(\\d+) ");
  private static final long MS = 1_000_000L;

  private final Vertx vertx = Vertx.vertx();
  private Process process;

  @AfterEach
  void stop() throws Exception {
    if (process != null) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private Process svc(String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), SvcCommand.class.getName()));
    command.addAll(List.of(args));
    process = new ProcessBuilder(command).redirectErrorStream(true).start();
    return process;
  }

  /** Its first line of output, within a minute. */
  private static String firstLine(Process process) throws Exception {
    return nextLine(new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)));
  }

  /** The next line of its output, within a minute; null at its end. */
  private static String nextLine(BufferedReader out) throws Exception {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return out.readLine();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }).get(60, TimeUnit.SECONDS);
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void itServesStreamsOnItsTimingFromTheFirstRequestUntilStopped() throws Exception {
    Process emulate = svc("engines", "emulate", "--port", "0", "--ttft-ms", "30", "--itl-ms", "5", "--tokens", "6",
        "--report-s", "1");
    BufferedReader output = new BufferedReader(new InputStreamReader(emulate.getInputStream(), StandardCharsets.UTF_8));
    String ready = nextLine(output);
    Matcher port = READY.matcher(ready == null ? "" : ready);
    assertThat(port.lookingAt()).as("its first line: %s", ready).isTrue();
    StreamingClient client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", Integer.parseInt(port.group(1)), 30_000);
    for (int i = 0; i < 3; i++) {
      RequestRecord record = await(client.send(RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI),
          GenerationRequest.completion(EngineEmulator.MODEL_ID, "hello " + i, 16)), RequestRecord.UNSCHEDULED));
      assertThat(record.error()).isNull();
      assertThat(record.outputTokens()).isEqualTo(6);
      assertThat(record.tokenSource()).isEqualTo(RequestRecord.TokenSource.USAGE);
      long[] chunks = record.chunks();
      assertThat(chunks).hasSize(6);
      for (int token = 0; token < chunks.length; token++) {
        // never before it was due (TTFT, then one inter-token delay each, from the request's arrival)
        assertThat(chunks[token] - record.send()).isGreaterThanOrEqualTo((30 + 5L * token) * MS);
      }
      // And not a fresh JVM's hundreds of ms late, even for the first request: it compiles its path
      // before it says it is ready. Read from the emulator's own account (its timings: prompt_ms is
      // from reading the request to writing the first token), not from this test's TTFT, which also
      // holds this JVM's cold client. Interpreted, that path took over 600 ms on a 2-core machine
      // (300 ms on one twice as fast); compiled, well under a millisecond of CPU (under 2 ms on one
      // twice as slow), so 200 ms of lateness tells the two apart on either.
      assertThat(record.server()).as("the emulator's timings").isNotNull();
      assertThat(record.server().promptMs() - 30).as("lateness of request %d's first token in ms", i).isLessThan(200);
    }
    await(client.close());
    // its own lateness, so that a user can tell it apart from the client's: served as JSON ...
    int emulatorPort = Integer.parseInt(port.group(1));
    JsonObject stats = await(OnEventLoop.call(vertx, () -> vertx.createHttpClient()
        .request(HttpMethod.GET, emulatorPort, "127.0.0.1", "/stats")
        .compose(r -> r.send()).compose(r -> r.body()).map(b -> b.toJsonObject())));
    assertThat(stats.getLong("requests")).isEqualTo(3);
    assertThat(stats.getJsonObject("first_token_late_ms").getLong("count")).isEqualTo(3);
    assertThat(stats.getJsonObject("token_late_ms").getLong("count")).isEqualTo(3 * 6);
    assertThat(stats.getJsonObject("token_late_ms").fieldNames()).contains("p50", "p99", "max");
    // ... printed for each second in which it served requests ...
    String report = nextLine(output);
    assertThat(report).matches(".* last 1 s: [1-3] requests; first token late p50 .* ms, p99 .* ms, max .* ms; "
        + "every token late p50 .*");
    emulate.toHandle().destroy(); // SIGTERM, as Ctrl-C (Process.destroy would also close its output)
    // ... and in all on exit
    List<String> rest = new ArrayList<>();
    for (String line = nextLine(output); line != null; line = nextLine(output)) {
      rest.add(line);
    }
    assertThat(emulate.waitFor(20, TimeUnit.SECONDS)).as("stopped").isTrue();
    assertThat(rest).last().asString().startsWith("Stopped after 3 requests; first token late p50 ");
  }

  @Test
  void aBadOptionIsASentenceAndExitTwo() throws Exception {
    Process emulate = svc("engines", "emulate", "--port", "0", "--tokens", "0");
    String said = firstLine(emulate);
    assertThat(emulate.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(emulate.exitValue()).isEqualTo(2);
    assertThat(said).isEqualTo("svc engines emulate: Tokens per response must be at least 1, got 0");
  }

  @Test
  void aPortInUseIsASentenceAndExitOne() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Process emulate = svc("engines", "emulate", "--port", String.valueOf(taken.getLocalPort()));
      String said = firstLine(emulate);
      assertThat(emulate.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(emulate.exitValue()).isEqualTo(1);
      assertThat(said).startsWith("svc engines emulate: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ");
    }
  }
}
