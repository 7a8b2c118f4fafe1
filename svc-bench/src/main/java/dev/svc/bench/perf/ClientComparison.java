package dev.svc.bench.perf;

import dev.svc.core.metrics.DistributionSummary;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * svc's client beside an independent one ({@code scripts/reference-client.py}, Python's standard
 * library, kept-alive connections) against the same engines: the engine emulator in its own
 * process and a real llama-server with a tiny generated model. Per engine and load (sequential,
 * concurrency:16, concurrency:64) it runs the two clients in turn for a number of rounds, each
 * round starting with the other client than the last so that a machine that grows busier
 * favours neither, and prints TTFT − prompt_ms (the engine's own prompt time taken out) for both.
 * svc runs as a user runs it: {@code svc run --endpoint} in a JVM of its own with this JVM's
 * options (scripts/bench-loadgen gives it those of scripts/run-jvm-options), its figures read
 * from requests.jsonl.gz. Prints figures; asserts nothing.
 * Usage: scripts/bench-loadgen compare [requests per run, default 128] [rounds, default 3].
 */
public final class ClientComparison {

  /** The target: svc's TTFT − prompt_ms p99 at most this far above the reference client's. */
  static final double WITHIN_MS = 5;
  static final List<Load> LOADS = List.of(new Load("sequential", 1), new Load("concurrency:16", 16),
      new Load("concurrency:64", 64));
  static final int MAX_TOKENS = 16;
  static final int WARMUP_REQUESTS = 5;
  /** The emulator's timing: a first token after 20 ms, then 16 tokens 10 ms apart. */
  static final double EMULATOR_TTFT_MS = 20;
  static final double EMULATOR_ITL_MS = 10;
  static final Path LLAMA_SERVER = Path.of("/root/.cache/svc/llama-server/3.22.1/llama-server");
  static final Path REFERENCE_CLIENT = Path.of("scripts/reference-client.py");
  private static final String SVC_MAIN = "dev.svc.server.cli.SvcCommand";
  private static final String BENCHMARK = "latency";

  private final Path work;
  private final Path model;
  private final int requests;

  private ClientComparison(Path work, Path model, int requests) {
    this.work = work;
    this.model = model;
    this.requests = requests;
  }

  /** A load as svc run names it and as the reference client's worker count. */
  record Load(String name, int concurrency) {
  }

  /** One comparison: of one engine and load, and the round. */
  record Round(String engine, Load load, int round, ClientLatencies svc, ClientLatencies reference, String machine) {

    /** svc's p99 minus the reference's, NaN when either has none. */
    double p99Difference() {
      DistributionSummary s = svc.overhead();
      DistributionSummary r = reference.overhead();
      return s == null || r == null ? Double.NaN : s.p99() - r.p99();
    }

    boolean within() {
      return p99Difference() <= WITHIN_MS;
    }
  }

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 128;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    if (!Files.isRegularFile(REFERENCE_CLIENT)) {
      throw new IllegalStateException(REFERENCE_CLIENT.toAbsolutePath() + " is missing: run this from svc's root");
    }
    // an interrupted comparison (Ctrl-C, a timeout) must not leave llama-server or a client running
    Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroy)));
    Path work = Files.createTempDirectory("svc-client-compare");
    try {
      Path model = TinyLlamaGguf.write(work.resolve("tiny.gguf"), TinyLlamaGguf.Shape.TIMING, 42L);
      ClientComparison comparison = new ClientComparison(work, model, requests);
      System.out.printf("machine: %d cores, Java %s; %d requests per run (%d warmup first), max_tokens %d, %d rounds;"
          + " svc JVM options: %s%n", Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
          requests, WARMUP_REQUESTS, MAX_TOKENS, rounds, String.join(" ", jvmOptions()));
      System.out.println("TTFT − prompt_ms in ms (the engine's own prompt time taken out); ref = scripts/reference-client.py");
      List<Round> all = new ArrayList<>();
      try (EmulatorProcess emulator = EmulatorProcess.start(EMULATOR_TTFT_MS, EMULATOR_ITL_MS, MAX_TOKENS)) {
        all.addAll(comparison.engine("emulator", "http://127.0.0.1:" + emulator.port(), rounds));
      }
      try (LlamaServerProcess llama = LlamaServerProcess.start(llamaServer(), model, work.resolve("llama-server.log"))) {
        all.addAll(comparison.engine("llama.cpp", "http://127.0.0.1:" + llama.port(), rounds));
      }
      System.out.printf("%nsvc's p99 at most %.0f ms above the reference's, rounds that met it:%n", WITHIN_MS);
      for (String engine : List.of("emulator", "llama.cpp")) {
        for (Load load : LOADS) {
          List<Round> of = all.stream().filter(r -> r.engine().equals(engine) && r.load().equals(load)).toList();
          System.out.printf("  %-9s %-14s %d of %d%n", engine, load.name(), of.stream().filter(Round::within).count(),
              of.size());
        }
      }
    } finally {
      deleteTree(work);
    }
  }

  private List<Round> engine(String engine, String url, int rounds) throws Exception {
    List<Round> out = new ArrayList<>();
    for (Load load : LOADS) {
      for (int round = 1; round <= rounds; round++) {
        MachineCpu before = MachineCpu.now();
        ClientLatencies svc;
        ClientLatencies reference;
        String tag = engine.replace('.', '_') + "-" + load.concurrency() + "-" + round;
        if (round % 2 == 1) {
          svc = svc(url, load, tag);
          reference = reference(url, load, tag);
        } else {
          reference = reference(url, load, tag);
          svc = svc(url, load, tag);
        }
        String machine = MachineCpu.now().since(before) + String.format(", load average %.1f",
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        Round result = new Round(engine, load, round, svc, reference, machine);
        print(result);
        out.add(result);
      }
    }
    return out;
  }

  private static void print(Round r) {
    System.out.printf("%-9s %-14s round %d  svc p50 %s p99 %s | ref p50 %s p99 %s | p99 svc−ref %s | connect p99 svc %s"
        + " ref %s | errors %d/%d | %s%n", r.engine(), r.load().name(), r.round(), p50(r.svc().overhead()),
        p99(r.svc().overhead()), p50(r.reference().overhead()), p99(r.reference().overhead()),
        Double.isNaN(r.p99Difference()) ? "n/a" : String.format("%+.1f", r.p99Difference()), p99(r.svc().connect()),
        p99(r.reference().connect()), r.svc().errors(), r.reference().errors(), r.machine());
    if (r.svc().withoutPromptMs() + r.reference().withoutPromptMs() > 0) {
      System.out.printf("   requests without the engine's prompt_ms, left out: svc %d, ref %d%n", r.svc().withoutPromptMs(),
          r.reference().withoutPromptMs());
    }
  }

  private static String p50(DistributionSummary d) {
    return d == null ? "n/a" : String.format("%.1f", d.p50());
  }

  private static String p99(DistributionSummary d) {
    return d == null ? "n/a" : String.format("%.1f", d.p99());
  }

  /** svc run in a JVM of its own, as a user runs it, with a suite of one benchmark shaped like the reference's run. */
  private ClientLatencies svc(String url, Load load, String tag) throws Exception {
    Path home = work.resolve("home");
    Files.createDirectories(home.resolve("suites"));
    Files.writeString(home.resolve("suites/compare.yaml"), """
        description: svc's client beside the reference client (ClientComparison)
        benchmarks:
          %s:
            iterations: %d
            max_tokens: %d
            load: sequential
            warmup_requests: %d
        """.formatted(BENCHMARK, requests, MAX_TOKENS, WARMUP_REQUESTS));
    Path out = work.resolve("svc-" + tag);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions());
    command.addAll(List.of("-Dsvc.app.home=" + Path.of("").toAbsolutePath(), "-cp", System.getProperty("java.class.path"),
        SVC_MAIN, "run", "--home", home.toString(), "-m", model.toString(), "--model-name", LlamaServerProcess.MODEL_NAME,
        "-e", "llama_cpp", "-s", "compare", "-b", BENCHMARK, "--endpoint", url, "--load", load.name(), "-o",
        out.toString()));
    Path log = work.resolve("svc-" + tag + ".log");
    run(command, log, log, "svc run");
    List<JsonObject> lines = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(out.resolve("requests.jsonl.gz"))), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        JsonObject request = new JsonObject(line);
        if (BENCHMARK.equals(request.getString("benchmark"))) {
          lines.add(request);
        }
      }
    }
    return ClientLatencies.ofSvc(lines);
  }

  private ClientLatencies reference(String url, Load load, String tag) throws Exception {
    Path out = work.resolve("ref-" + tag + ".jsonl");
    run(List.of("python3", REFERENCE_CLIENT.toString(), url, "--concurrency", String.valueOf(load.concurrency()),
        "--requests", String.valueOf(requests), "--max-tokens", String.valueOf(MAX_TOKENS), "--warmup",
        String.valueOf(WARMUP_REQUESTS), "--model", LlamaServerProcess.MODEL_NAME), out,
        work.resolve("ref-" + tag + ".log"), "the reference client");
    try (Stream<String> lines = Files.lines(out)) {
      return ClientLatencies.ofReference(lines.filter(l -> !l.isBlank()).map(JsonObject::new).toList());
    }
  }

  /** Runs a client to its end, its standard output and errors into files (one for both when the same). */
  private static void run(List<String> command, Path output, Path errors, String what) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(output.toFile());
    if (errors.equals(output)) {
      builder.redirectErrorStream(true);
    } else {
      builder.redirectError(errors.toFile());
    }
    Process process = builder.start();
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor();
      throw new IllegalStateException(what + " ran over 10 minutes");
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(what + " exited with " + process.exitValue() + "; its errors: "
          + Files.readString(errors));
    }
  }

  /** This JVM's own options, which svc run gets too: scripts/bench-loadgen starts this JVM with svc run's. */
  private static List<String> jvmOptions() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments();
  }

  private static Path llamaServer() {
    String named = System.getenv("SVC_LLAMA_SERVER");
    return named == null || named.isBlank() ? LLAMA_SERVER : Path.of(named);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
