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
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.DoubleStream;

/**
 * The load generator's own capacity on this machine, against the engine emulator:
 * (1) the highest sustained rate of non-streaming requests, closed loop at several concurrencies;
 * (2) many concurrent streams from an emulator in its own process, with the client's delay per
 * chunk measured from the emulator's write stamp in each chunk to the client's arrival time;
 * (3) the open-loop client's schedule lag (t_send − t_sched) at a high rate.
 * Prints figures; asserts nothing. Usage: scripts/bench-loadgen [streams] [seconds] [phases, e.g. 13].
 */
public final class LoadGeneratorBenchmark {

  /** Seconds of the streams' load sent before the measured run, to let the JIT finish. */
  static final int WARMUP_S = 25;

  private LoadGeneratorBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    int streams = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Runtime.getRuntime().availableProcessors())
        .setPreferNativeTransport(true));
    try {
      System.out.printf("machine: %d cores, Java %s, %s, native transport: %s%n", Runtime.getRuntime().availableProcessors(),
          System.getProperty("java.version"), garbageCollectors(), vertx.isNativeTransportEnabled());
      MachineCpu.now(); // loads OSHI now: loading and compiling it inside a measured run took CPU from the client
      String phases = args.length > 2 ? args[2] : "123";
      if (phases.contains("1")) {
        nonStreamingRate(vertx, seconds);
      }
      if (phases.contains("2")) {
        concurrentStreams(vertx, streams);
      }
      if (phases.contains("3")) {
        scheduleLag(vertx, seconds);
      }
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
      MachineCpu machine = MachineCpu.now();
      long start = System.nanoTime();
      List<RequestRecord> last = List.of();
      while (System.nanoTime() - start < seconds * 1_000_000_000L) {
        last = await(runner.run(LoadModel.concurrency(connections), 10_000, 0, 1, LoadGeneratorBenchmark::whole)).measured();
        count += last.size();
        failOnErrors(last);
      }
      double elapsed = (System.nanoTime() - start) / 1e9;
      DistributionSummary e2e = DistributionSummary.of(last.stream().mapToDouble(RequestRecord::e2eMs).toArray());
      System.out.printf("   %11d %10d %10.1f %12.0f %12.2f %12.2f   %s%n", connections, count, elapsed, count / elapsed,
          e2e.p50(), e2e.p99(), MachineCpu.now().since(machine));
      await(client.close());
    }
    await(emulator.close());
  }

  private static void concurrentStreams(Vertx vertx, int streams) throws Exception {
    // Streams arrive as a Poisson process and each lasts ~5 s, so about `streams` are open at once
    // without all of them starting (or emitting) in the same instant. The emulator runs in its own
    // process and stamps each token with its clock when it wrote it; the client's delay per chunk
    // is its arrival time minus that stamp (one monotonic clock for the whole host).
    double ttft = 1000;
    double itl = 100;
    int tokens = 40;
    double lifetimeS = (ttft + (tokens - 1) * itl) / 1000;
    double rate = streams / lifetimeS;
    int count = (int) (rate * lifetimeS * 2.5);
    try (EmulatorProcess emulator = EmulatorProcess.start(ttft, itl, tokens)) {
      StreamingClient client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", emulator.port(), 60_000);
      LoadRunner runner = new LoadRunner(vertx, client);
      // The same load for WARMUP_S first, not measured: until the JIT has compiled both processes'
      // paths (over 10 s on 2 cores, its threads competing with the work), chunks wait tens of ms.
      failOnErrors(await(runner.run(LoadModel.poisson(rate), (int) (rate * WARMUP_S), 0, 5,
          LoadGeneratorBenchmark::stream)).measured());
      long jit = jitMs();
      Duration clientCpu = cpu(ProcessHandle.current());
      Duration emulatorCpu = emulator.cpu();
      MachineCpu machine = MachineCpu.now();
      List<RequestRecord> measured = await(runner.run(LoadModel.poisson(rate), count, 0, 3,
          LoadGeneratorBenchmark::stream)).measured();
      String machineUse = MachineCpu.now().since(machine);
      clientCpu = cpu(ProcessHandle.current()).minus(clientCpu);
      jit = jitMs() - jit;
      emulatorCpu = emulator.cpu().minus(emulatorCpu);
      failOnErrors(measured);
      OpenStreams open = OpenStreams.of(measured);
      int full = (int) (streams * 0.95);
      ChunkDelays delays = ChunkDelays.of(measured, open, full);
      long tokensSeen = measured.stream().mapToLong(RequestRecord::outputTokens).sum();
      System.out.printf("%n2. Concurrent streams: poisson:%.0f for %d streams of %.1f s each (emulator in its own process: "
          + "TTFT %.0f ms, %d tokens %.0f ms apart), after %d s of the same load to warm up; at most %d open at once; "
          + "%d tokens received%n", rate, count, lifetimeS, ttft, tokens, itl, WARMUP_S, open.peak(), tokensSeen);
      print("client delay per chunk (arrival - emulator's write stamp)", delays.all());
      print("  chunks that arrived while " + full + "+ streams were open (" + delays.fullLoadChunks() + ")",
          delays.atFullLoad());
      print("  first chunks (the TTFT path)", delays.first());
      DistributionSummary late = DistributionSummary.of(measured.stream().mapToDouble(r -> r.ttftMs() - ttft).toArray());
      print("observed TTFT - 1000 ms (adds the emulator's own lateness)", late);
      double span = (measured.stream().mapToLong(RequestRecord::end).max().orElse(0)
          - measured.stream().mapToLong(RequestRecord::send).min().orElse(0)) / 1e9;
      System.out.printf("   CPU over the measured %.1f s (the whole process: event loops, GC, JIT): client %.1f s (%.0f %% of a core), "
          + "%.1f µs per chunk, %.0f µs per stream, its JIT compiled for %.2f s; emulator %.1f s (%.0f %% of a core); %s%n",
          span, seconds(clientCpu), 100 * seconds(clientCpu) / span, 1e6 * seconds(clientCpu) / tokensSeen,
          1e6 * seconds(clientCpu) / measured.size(), jit / 1000.0, seconds(emulatorCpu), 100 * seconds(emulatorCpu) / span,
          machineUse);
      await(client.close());
    }
  }

  /** CPU time the process has used so far, all its threads together. */
  static Duration cpu(ProcessHandle process) {
    return process.info().totalCpuDuration()
        .orElseThrow(() -> new IllegalStateException("This system does not report the CPU time of process " + process.pid()));
  }

  /** Milliseconds this JVM's compiler threads have spent compiling so far. */
  private static long jitMs() {
    return java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  private static String garbageCollectors() {
    return String.join(" + ", java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
        .map(java.lang.management.GarbageCollectorMXBean::getName).toList());
  }

  private static void print(String label, DistributionSummary d) {
    System.out.printf("   %-68s p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms%n", label + ":", d.p50(), d.p90(), d.p99(),
        d.max());
  }

  /**
   * Per chunk, the client's arrival time minus the emulator's stamp in that chunk's text, in ms:
   * every chunk, those that arrived while at least {@code full} streams were open, and first chunks.
   */
  record ChunkDelays(DistributionSummary all, DistributionSummary atFullLoad, int fullLoadChunks, DistributionSummary first) {

    static ChunkDelays of(List<RequestRecord> records, OpenStreams open, int fullLoad) {
      DoubleStream.Builder all = DoubleStream.builder();
      DoubleStream.Builder atFull = DoubleStream.builder();
      double[] first = new double[records.size()];
      for (int r = 0; r < records.size(); r++) {
        RequestRecord record = records.get(r);
        String[] stamps = record.text().trim().split(" ");
        if (stamps.length != record.chunks().length) {
          throw new IllegalStateException("Expected one stamp per chunk, got " + stamps.length + " stamps for "
              + record.chunks().length + " chunks");
        }
        for (int i = 0; i < stamps.length; i++) {
          long arrival = record.chunks()[i];
          double delay = (arrival - Long.parseLong(stamps[i])) / 1e6;
          all.add(delay);
          if (open.at(arrival) >= fullLoad) {
            atFull.add(delay);
          }
          if (i == 0) {
            first[r] = delay;
          }
        }
      }
      double[] full = atFull.build().toArray();
      return new ChunkDelays(DistributionSummary.of(all.build().toArray()), DistributionSummary.of(full), full.length,
          DistributionSummary.of(first));
    }
  }

  /** How many requests were open (between their t_send and t_end) at each moment of a run. */
  record OpenStreams(long[] times, int[] counts) {

    static OpenStreams of(List<RequestRecord> records) {
      long[][] events = new long[records.size() * 2][];
      int i = 0;
      for (RequestRecord r : records) {
        events[i++] = new long[] {r.send(), 1};
        events[i++] = new long[] {r.end(), -1};
      }
      Arrays.sort(events, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
      long[] times = new long[events.length];
      int[] counts = new int[events.length];
      int open = 0;
      for (int e = 0; e < events.length; e++) {
        open += (int) events[e][1];
        times[e] = events[e][0];
        counts[e] = open;
      }
      return new OpenStreams(times, counts);
    }

    /** Requests open at {@code time}. */
    int at(long time) {
      int index = Arrays.binarySearch(times, time);
      int last = index >= 0 ? index : -index - 2;
      while (index >= 0 && last + 1 < times.length && times[last + 1] == time) {
        last++;
      }
      return last < 0 ? 0 : counts[last];
    }

    int peak() {
      return Arrays.stream(counts).max().orElse(0);
    }
  }

  private static void scheduleLag(Vertx vertx, int seconds) throws Exception {
    EngineEmulator emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0)));
    StreamingClient client = StreamingClient.connectionPerRequest(vertx, "127.0.0.1", emulator.port(), 30_000);
    LoadRunner runner = new LoadRunner(vertx, client);
    double rate = 2000;
    MachineCpu machine = MachineCpu.now();
    List<RequestRecord> measured = await(runner.run(LoadModel.poisson(rate), (int) (rate * seconds), 500, 7,
        LoadGeneratorBenchmark::whole)).measured();
    String machineUse = MachineCpu.now().since(machine);
    failOnErrors(measured);
    DistributionSummary lag = DistributionSummary.of(measured.stream().mapToDouble(RequestRecord::queueingDelayMs).toArray());
    System.out.printf("%n3. Open loop poisson:%.0f for %d s, non-streaming: schedule lag t_send - t_sched%n", rate, seconds);
    System.out.printf("   p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms; %s%n", lag.p50(), lag.p90(), lag.p99(), lag.max(),
        machineUse);
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
