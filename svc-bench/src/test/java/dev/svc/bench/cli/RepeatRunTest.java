package dev.svc.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.VertxTest;
import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import dev.svc.core.metrics.Confidence;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code svc run --repeat 3} against the engine emulator: the benchmark runs three times with prompts
 * of its own each time, and metrics.json, summary.md and requests.jsonl.gz give every figure's mean
 * with its interval, each run's entry and each request's run.
 */
class RepeatRunTest extends VertxTest {

  @TempDir
  Path temp;

  private EngineEmulator emulator;

  @BeforeEach
  void start() throws Exception {
    // paced like an engine (each request about 80 ms), so that the client in this JVM is never the bottleneck
    emulator = await(EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(25, 5, 12)));
  }

  @Test
  void threeRunsGiveEachFigureItsMeanAndInterval() throws Exception {
    Path out = temp.resolve("repeated");

    Captured run = run("-s", "quick", "--repeat", "3", "-o", out.toString());

    assertThat(run.exit()).as(run.stderr()).isZero();
    // three runs of the quick suite's 20 requests, each after its 5 warmup requests
    assertThat(emulator.served()).isEqualTo(3 * 25);
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.getInteger(MetricKeys.REPEATS)).isEqualTo(3);
    JsonObject entry = metrics.getJsonArray(MetricKeys.RESULTS).getJsonObject(0);
    assertThat(entry.getInteger(MetricKeys.REPEATS)).isEqualTo(3);
    JsonObject figures = entry.getJsonObject(MetricKeys.METRICS);
    assertThat(figures.getLong(MetricKeys.TOTAL_ITERATIONS)).isEqualTo(60L);
    assertThat(figures.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(60L * 12);

    JsonArray runs = entry.getJsonArray(MetricKeys.REPEAT_RUNS);
    assertThat(runs).hasSize(3);
    List<JsonObject> entries = runs.stream().map(o -> (JsonObject) o).toList();
    assertThat(entries).extracting(e -> e.getInteger(MetricKeys.RUN_NUMBER)).containsExactly(1, 2, 3);
    assertThat(entries).extracting(e -> e.getJsonObject(MetricKeys.LOAD).getString(MetricKeys.LOAD_PROMPTS_HASH))
        .as("each run's prompts are its own").doesNotHaveDuplicates();

    JsonObject confidence = entry.getJsonObject(MetricKeys.CONFIDENCE);
    assertThat(confidence.getString(MetricKeys.CONFIDENCE_METHOD)).isEqualTo(Confidence.METHOD);
    for (String path : List.of(MetricKeys.OUTPUT_TOKEN_THROUGHPUT, "ttft_ms.p50", "tpot_ms.p99", "e2e_ms.mean")) {
      Confidence c = Confidence.fromJson(confidence.getJsonObject(MetricKeys.CONFIDENCE_FIGURES).getValue(path));
      assertThat(c).as(path).isNotNull();
      assertThat(c.n()).as(path).isEqualTo(3);
      assertThat(c.low()).as(path).isLessThanOrEqualTo(c.mean());
      assertThat(c.high()).as(path).isGreaterThanOrEqualTo(c.mean());
      double mean = entries.stream().mapToDouble(e -> value(e.getJsonObject(MetricKeys.METRICS), path)).average()
          .orElseThrow();
      assertThat(value(figures, path)).as(path + ": the runs' mean").isCloseTo(mean, org.assertj.core.data.Offset.offset(0.001));
    }

    assertThat(Files.readString(out.resolve("summary.md"))).contains("| throughput (3 runs) | yes | yes | 60 | 0 | ")
        .containsPattern("\\| [0-9.]+ ± [0-9.]+ tokens/s \\| [0-9.]+ ± [0-9.]+ \\|")
        .contains("± the half-width of the mean's 95 % confidence interval");
    List<JsonObject> lines;
    try (InputStream in = new GZIPInputStream(Files.newInputStream(out.resolve("requests.jsonl.gz")))) {
      lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(JsonObject::new).toList();
    }
    Map<Integer, Long> perRun = lines.stream().collect(Collectors.groupingBy(l -> l.getInteger(MetricKeys.RUN_NUMBER),
        Collectors.counting()));
    assertThat(perRun).isEqualTo(Map.of(1, 20L, 2, 20L, 3, 20L));
    // times count from each run's own first send
    assertThat(lines.stream().filter(l -> l.getDouble("t_send_ms") == 0.0).count()).isEqualTo(3);
  }

  @Test
  void aRepeatThatCannotBeHonouredIsRefusedBeforeAnythingRuns() {
    Captured sweep = run("-s", "quick", "--repeat", "2", "--load", "sweep", "-o", temp.resolve("a").toString());
    assertThat(sweep.exit()).isEqualTo(2);
    assertThat(sweep.stderr()).contains("svc run: --repeat cannot repeat the sweep of throughput");
    Captured zero = run("-s", "quick", "--repeat", "0", "-o", temp.resolve("b").toString());
    assertThat(zero.exit()).isEqualTo(2);
    assertThat(zero.stderr()).contains("svc run: --repeat must be from 1 to 100");
    assertThat(emulator.served()).isZero();
    assertThat(temp.resolve("a")).doesNotExist();
  }

  private static double value(JsonObject metrics, String path) {
    String[] parts = path.split("\\.");
    return parts.length == 1 ? metrics.getDouble(parts[0]) : metrics.getJsonObject(parts[0]).getDouble(parts[1]);
  }

  private record Captured(int exit, String stderr) {
  }

  /** {@code svc run} at the emulator with a home of the test's own; its exit code and what it wrote to stderr. */
  private Captured run(String... args) {
    List<String> all = new ArrayList<>(List.of("--home", temp.resolve("home").toString(), "-m",
        temp.resolve("models/tiny.gguf").toString(), "-e", "llama_cpp", "--endpoint",
        "http://127.0.0.1:" + emulator.port()));
    all.addAll(List.of(args));
    PrintStream original = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      int exit = new CommandLine(new RunCommand()).execute(all.toArray(String[]::new));
      return new Captured(exit, bytes.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(original);
    }
  }
}
