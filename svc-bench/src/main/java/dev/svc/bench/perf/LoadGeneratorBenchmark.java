package dev.svc.bench.perf;

import dev.svc.bench.client.RequestSpec;
import dev.svc.bench.client.StreamingClient;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.bench.load.LoadModel;
import dev.svc.bench.load.LoadRunner;
import dev.svc.bench.measure.RequestRecord;
import dev.svc.core.metrics.DistributionSummary;
import dev.svc.engines.RequestApi;
import dev.svc.engines.codec.EngineCodec;
import dev.svc.engines.codec.GenerationRequest;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The load generator's own capacity on this machine, against the emulator in the same JVM:
 * (1) the highest sustained rate of non-streaming requests, closed loop at several concurrencies;
 * (2) many concurrent streams, with the client's overhead per request measured as observed TTFT
 * minus the emulator's exact TTFT (an upper bound: it includes the emulator's own work);
 * (3) the open-loop client's schedule lag (t_send − t_sched) at a high rate.
 * Prints figures; asserts nothing. Usage: scripts/bench-loadgen [streams] [seconds].
 */
public final class LoadGeneratorBenchmark {

  private LoadGeneratorBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    int streams = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Runtime.getRuntime().availableProcessors()));
    try {
      System.out.printf("machine: %d cores, Java %s%n", Runtime.getRuntime().availableProcessors(),
          System.getProperty("java.version"));
      nonStreamingRate(vertx, seconds);
      concurrentStreams(vertx, streams);
      scheduleLag(vertx, seconds);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static void nonStreamingRate(Vertx vertx, int seconds) throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0)));
    System.out.println("\n1. Non-streaming requests/s, closed loop, emulator with zero delay (16 tokens per answer)");
    System.out.println("   connections  requests    seconds   requests/s   e2e p50 ms   e2e p99 ms");
    for (int connections : new int[] {8, 32, 128}) {
      StreamingClient client = new StreamingClient(vertx, "127.0.0.1", emulator.port(), connections, 30_000);
      LoadRunner runner = new LoadRunner(vertx, client);
      await(runner.run(LoadModel.concurrency(connections), 5_000, 200, 1, LoadGeneratorBenchmark::whole)); // JIT warmup
      int count = 0;
      long start = System.nanoTime();
      List<RequestRecord> last = List.of();
      while (System.nanoTime() - start < seconds * 1_000_000_000L) {
        last = await(runner.run(LoadModel.concurrency(connections), 10_000, 0, 1, LoadGeneratorBenchmark::whole)).measured();
        count += last.size();
        failOnErrors(last);
      }
      double elapsed = (System.nanoTime() - start) / 1e9;
      DistributionSummary e2e = DistributionSummary.of(last.stream().mapToDouble(RequestRecord::e2eMs).toArray());
      System.out.printf("   %11d %10d %10.1f %12.0f %12.2f %12.2f%n", connections, count, elapsed, count / elapsed,
          e2e.p50(), e2e.p99());
      await(client.close());
    }
    await(emulator.close());
  }

  private static void concurrentStreams(Vertx vertx, int streams) throws Exception {
    // Streams arrive as a Poisson process and each lasts ~5 s, so about `streams` are open at once
    // without all of them starting (or emitting) in the same instant.
    double ttft = 1000;
    double itl = 100;
    int tokens = 40;
    double lifetimeS = (ttft + (tokens - 1) * itl) / 1000;
    double rate = streams / lifetimeS;
    int count = (int) (rate * lifetimeS * 2.5);
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(ttft, itl, tokens)));
    StreamingClient client = new StreamingClient(vertx, "127.0.0.1", emulator.port(), streams * 2, 60_000);
    LoadRunner runner = new LoadRunner(vertx, client);
    List<RequestRecord> measured = await(runner.run(LoadModel.poisson(rate), count, 0, 3,
        LoadGeneratorBenchmark::stream)).measured();
    failOnErrors(measured);
    DistributionSummary overhead = DistributionSummary.of(measured.stream().mapToDouble(r -> r.ttftMs() - ttft).toArray());
    DistributionSummary gapError = DistributionSummary.of(measured.stream()
        .flatMapToDouble(r -> java.util.Arrays.stream(r.gapsMs())).map(g -> Math.abs(g - itl)).toArray());
    long tokensSeen = measured.stream().mapToLong(RequestRecord::outputTokens).sum();
    System.out.printf("%n2. Concurrent streams: poisson:%.0f for %d streams of %.1f s each (emulator: TTFT %.0f ms, %d tokens "
        + "%.0f ms apart); at most %d open at once; %d tokens received%n", rate, count, lifetimeS, ttft, tokens, itl,
        peakOpen(measured), tokensSeen);
    System.out.printf("   client overhead = observed TTFT - %.0f ms:  p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms%n",
        ttft, overhead.p50(), overhead.p90(), overhead.p99(), overhead.max());
    System.out.printf("   |inter-chunk gap - %.0f ms|:               p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms%n",
        itl, gapError.p50(), gapError.p90(), gapError.p99(), gapError.max());
    await(client.close());
    await(emulator.close());
  }

  /** The most requests open at the same time (between their t_send and t_end). */
  static int peakOpen(List<RequestRecord> records) {
    long[][] events = new long[records.size() * 2][];
    int i = 0;
    for (RequestRecord r : records) {
      events[i++] = new long[] {r.send(), 1};
      events[i++] = new long[] {r.end(), -1};
    }
    java.util.Arrays.sort(events, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    int open = 0;
    int peak = 0;
    for (long[] e : events) {
      open += (int) e[1];
      peak = Math.max(peak, open);
    }
    return peak;
  }

  private static void scheduleLag(Vertx vertx, int seconds) throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0)));
    StreamingClient client = new StreamingClient(vertx, "127.0.0.1", emulator.port(), 256, 30_000);
    LoadRunner runner = new LoadRunner(vertx, client);
    double rate = 2000;
    List<RequestRecord> measured = await(runner.run(LoadModel.poisson(rate), (int) (rate * seconds), 500, 7,
        LoadGeneratorBenchmark::whole)).measured();
    failOnErrors(measured);
    DistributionSummary lag = DistributionSummary.of(measured.stream().mapToDouble(RequestRecord::queueingDelayMs).toArray());
    System.out.printf("%n3. Open loop poisson:%.0f for %d s, non-streaming: schedule lag t_send - t_sched%n", rate, seconds);
    System.out.printf("   p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms%n", lag.p50(), lag.p90(), lag.p99(), lag.max());
    await(client.close());
    await(emulator.close());
  }

  private static RequestSpec whole(int i) {
    return RequestSpec.openAiWhole(EngineEmulator.MODEL_ID, "hello", 16);
  }

  private static RequestSpec stream(int i) {
    return RequestSpec.streamed(EngineCodec.forApi(RequestApi.OPENAI), GenerationRequest.completion(EngineEmulator.MODEL_ID, "hello", 64));
  }

  private static void failOnErrors(List<RequestRecord> records) {
    records.stream().filter(r -> !r.ok()).findFirst().ifPresent(r -> {
      throw new IllegalStateException("A request failed: " + r.error());
    });
  }

  private static <T> T await(io.vertx.core.Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(600, TimeUnit.SECONDS);
  }
}
