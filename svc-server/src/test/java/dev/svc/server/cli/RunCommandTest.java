package dev.svc.server.cli;

import dev.svc.bench.cli.RunCommand;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.emulator.EmulatorOptions;
import dev.svc.bench.emulator.EngineEmulator;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectImageResponse;
import dev.svc.bench.run.ModelDigest;
import dev.svc.core.FileDigest;
import dev.svc.core.home.SvcHome;
import dev.svc.engines.EngineCatalog;
import dev.svc.core.metrics.DistributionSummary;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.fixtures.LlamaServerBinary;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import dev.svc.engines.lifecycle.NativeLifecycle;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code svc run} against the engine emulator (through --endpoint): the files it writes, the exit
 * codes, quality scoring from dataset files, and usage mistakes. The container path is the engine
 * lifecycle's, tested in svc-engines against the real dockerd.
 */
class RunCommandTest {

  @TempDir
  Path temp;

  private Vertx vertx;
  private EngineEmulator emulator;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    emulator = EngineEmulator.start(vertx, EmulatorOptions.instant(0).withTiming(2, 1, 16).withAnswers(prompt ->
        prompt.contains("three plus four") ? "It is 7." : prompt.contains("ten minus two") ? "It is 9." : null))
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private int run(String... args) {
    String[] all = new String[args.length + 7];
    all[0] = "run";
    all[1] = "--home";
    all[2] = temp.resolve("home").toString();
    all[3] = "--endpoint";
    all[4] = "http://127.0.0.1:" + emulator.port();
    all[5] = "-m";
    all[6] = temp.resolve("models/tiny.gguf").toString();
    System.arraycopy(args, 0, all, 7, args.length);
    return new CommandLine(new SvcCommand()).execute(all);
  }

  @Test
  void aPerformanceRunWritesEveryFileAndExitsZero() throws Exception {
    Path out = temp.resolve("out");
    assertThat(run("-e", "llama_cpp", "-s", "performance", "-b", "latency", "-o", out.toString(), "--slo", "ttft_ms=500"))
        .isZero();
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.fieldNames()).containsAll(MetricKeys.TOP_LEVEL);
    assertThat(metrics.getString(MetricKeys.ENGINE)).isEqualTo("llama_cpp");
    assertThat(metrics.getBoolean(MetricKeys.PASSED)).isTrue();
    assertThat(metrics.getInteger(MetricKeys.TOTAL_BENCHMARKS)).isEqualTo(1);
    JsonObject latency = metrics.getJsonArray(MetricKeys.RESULTS).getJsonObject(0);
    assertThat(latency.getString(MetricKeys.TEST_NAME)).isEqualTo("latency");
    JsonObject m = latency.getJsonObject(MetricKeys.METRICS);
    assertThat(m.fieldNames()).containsAll(MetricKeys.PERFORMANCE);
    // the suite runs latency 3 times
    assertThat(m.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(3 * 30L * 16);
    assertThat(m.getDouble(MetricKeys.SLO_ATTAINMENT)).isEqualTo(1.0);
    assertThat(metrics.getJsonObject(MetricKeys.SYSTEM_INFO).getJsonObject("cpu").getString("model")).isNotBlank();
    for (String file : new String[] {"hardware.json", "config.json", "summary.md", "requests.jsonl.gz"}) {
      assertThat(out.resolve(file)).isNotEmptyFile();
    }
    JsonObject config = new JsonObject(Files.readString(out.resolve("config.json")));
    assertThat(config.getString("benchmark")).isEqualTo("latency");
    // no --seed: one drawn for the run, recorded where --seed can take it back
    assertThat(metrics.getBoolean(MetricKeys.SEED_GIVEN)).isFalse();
    assertThat(config.getLong("seed")).isEqualTo(metrics.getLong(MetricKeys.SEED))
        .isEqualTo(latency.getJsonObject(MetricKeys.LOAD).getLong(MetricKeys.LOAD_SEED)).isBetween(0L, 1L << 53);
    // the emulator says nothing of a prompt cache: unknown, not 0
    assertThat(m.containsKey(MetricKeys.CACHE_HIT_FRACTION)).isTrue();
    assertThat(m.getValue(MetricKeys.CACHE_HIT_FRACTION)).isNull();
    assertThat(latency.getJsonObject(MetricKeys.LOAD).getInteger(MetricKeys.LOAD_PREFIX_TOKENS)).isZero();
    assertThat(latency.getBoolean(MetricKeys.VALID)).isTrue();
  }

  @Test
  void aSweepRunExitsZeroAndRecordsEveryStep() throws Exception {
    Path out = temp.resolve("sweep");
    assertThat(run("-e", "llama_cpp", "-s", "performance", "-b", "latency", "-o", out.toString(), "--load", "sweep"))
        .isZero();
    JsonObject result = new JsonObject(Files.readString(out.resolve("metrics.json"))).getJsonArray(MetricKeys.RESULTS)
        .getJsonObject(0);
    assertThat(result.getJsonObject(MetricKeys.LOAD).getString(MetricKeys.LOAD_MODE)).isEqualTo("sweep");
    JsonArray steps = result.getJsonObject(MetricKeys.METRICS).getJsonArray(MetricKeys.SWEEP);
    // latency is sequential in the suite, so the max-throughput step has the default 16 workers
    assertThat(steps.stream().map(s -> ((JsonObject) s).getString(MetricKeys.LOAD)).toList())
        .startsWith("sequential", "concurrency:16").hasSize(6);
    assertThat(steps.stream().map(s -> ((JsonObject) s).getInteger(MetricKeys.TOTAL_ITERATIONS))).containsOnly(30);
    assertThat(Files.readString(out.resolve("summary.md"))).contains("## latency: sweep");
  }

  @Test
  void qualityIsScoredFromTheDatasetFilesExactly() throws Exception {
    Path datasets = temp.resolve("datasets");
    Files.createDirectories(datasets.resolve("gsm8k"));
    Files.writeString(datasets.resolve("gsm8k/test.jsonl"),
        new JsonObject().put("question", "What is three plus four?").put("answer", "3 + 4 = 7\n#### 7").encode() + "\n"
            + new JsonObject().put("question", "What is ten minus two?").put("answer", "10 - 2 = 8\n#### 8").encode() + "\n");
    Path out = temp.resolve("quality");
    assertThat(run("-e", "llama_cpp", "-s", "standard", "-b", "gsm8k", "-o", out.toString(),
        "--dataset-dir", datasets.toString())).isZero();
    JsonObject result = new JsonObject(Files.readString(out.resolve("metrics.json"))).getJsonArray(MetricKeys.RESULTS)
        .getJsonObject(0);
    assertThat(result.getJsonObject(MetricKeys.METRICS)).isEqualTo(new JsonObject().put("accuracy", 0.5)
        .put("correct", 1).put("total", 2));
  }

  @Test
  void aMissingDatasetFailsTheBenchmarkAndTheRunExitsNonZero() throws Exception {
    Path out = temp.resolve("missing");
    assertThat(run("-e", "llama_cpp", "-s", "standard", "-b", "mmlu", "-o", out.toString(),
        "--dataset-dir", temp.resolve("nothing").toString())).isEqualTo(1);
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.getBoolean(MetricKeys.PASSED)).isFalse();
    assertThat(metrics.getInteger(MetricKeys.FAILED_COUNT)).isEqualTo(1);
    JsonArray errors = metrics.getJsonArray(MetricKeys.RESULTS).getJsonObject(0).getJsonArray(MetricKeys.ERRORS);
    assertThat(errors.getString(0)).contains("Dataset for mmlu not found");
  }

  @Test
  void thePerformanceSuiteOnTheRealLlamaCppContainerWritesACompleteResultAndLeavesNoContainer() throws Exception {
    DockerClient docker = LlamaServerImage.requireDockerWithImage();
    Path home = temp.resolve("docker-home");
    LlamaServerImage.writeEngineOverride(home);
    Files.createDirectories(temp.resolve("models"));
    // the timing shape: its prompt time is most of its TTFT, so that the comparison below is about the engine's work
    Path model = TinyLlamaGguf.write(temp.resolve("models/tiny.gguf"), TinyLlamaGguf.Shape.TIMING, 42L);
    Path out = temp.resolve("llama");
    try {
      int exit = new CommandLine(new SvcCommand()).execute("run", "--home", home.toString(), "-m", model.toString(),
          "-e", "llama_cpp", "-s", "performance", "-o", out.toString());
      assertThat(exit).isZero();
      JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
      assertThat(metrics.fieldNames()).containsAll(MetricKeys.TOP_LEVEL);
      assertThat(metrics.getString(MetricKeys.ENGINE_IMAGE)).isEqualTo(LlamaServerImage.TAG);
      assertThat(metrics.getBoolean(MetricKeys.PASSED)).isTrue();
      // the image as the daemon has it: a registry's digest when it came from one, else its local id
      InspectImageResponse image = docker.inspectImageCmd(LlamaServerImage.TAG).exec();
      assertThat(metrics.getString(MetricKeys.ENGINE_IMAGE_DIGEST)).isEqualTo(
          image.getRepoDigests() == null || image.getRepoDigests().isEmpty() ? image.getId() : image.getRepoDigests().get(0));
      assertThat(metrics.getString(MetricKeys.ENGINE_IMAGE_DIGEST)).contains("sha256:");
      assertThat(metrics.getJsonArray(MetricKeys.ENGINE_ARGS).getList()).containsExactly(LlamaServerImage.TAG,
          "-m", "/models/tiny.gguf", "--host", "0.0.0.0", "--port", "8081", "-a", "tiny");
      assertThat(metrics.getString(MetricKeys.ENGINE_VERSION)).matches("b\\d+-[0-9a-f]+");
      assertThat(metrics.getString(MetricKeys.MODEL_DIGEST)).isEqualTo("sha256:" + FileDigest.sha256(model));
      JsonArray results = metrics.getJsonArray(MetricKeys.RESULTS);
      assertThat(results.stream().map(r -> ((JsonObject) r).getString(MetricKeys.TEST_NAME)))
          .containsExactly("throughput", "latency", "memory", "warmup");
      for (Object r : results) {
        JsonObject m = ((JsonObject) r).getJsonObject(MetricKeys.METRICS);
        assertThat(m.fieldNames()).containsAll(MetricKeys.PERFORMANCE);
        assertThat(m.getString(MetricKeys.TOKEN_COUNT_SOURCE)).isEqualTo(MetricKeys.TOKEN_COUNT_USAGE);
        assertThat(m.getJsonObject(MetricKeys.TTFT_MS).getDouble(MetricKeys.P50)).isPositive();
        assertThat(m.getLong(MetricKeys.ERROR_COUNT)).isZero();
      }
      // the suite runs throughput, latency and memory 3 times each, warmup once (it measures a cold engine)
      assertThat(results.stream().map(r -> ((JsonObject) r).getInteger(MetricKeys.REPEATS)))
          .containsExactly(3, 3, 3, null);
      assertThat(metrics.getInteger(MetricKeys.REPEATS)).isEqualTo(3);
      assertThat(results.getJsonObject(0).getJsonObject(MetricKeys.CONFIDENCE)
          .getJsonObject(MetricKeys.CONFIDENCE_FIGURES).getJsonObject(MetricKeys.OUTPUT_TOKEN_THROUGHPUT)
          .getInteger(MetricKeys.CI_N)).isEqualTo(3);
      // the tiny model never emits EOS: every request runs to exactly max_tokens (latency: 3 runs of 30 × 64)
      JsonObject latency = results.getJsonObject(1).getJsonObject(MetricKeys.METRICS);
      assertThat(latency.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(3 * 30L * 64);
      JsonObject server = latency.getJsonObject(MetricKeys.SERVER_TIMINGS);
      assertThat(server.getInteger("requests")).isEqualTo(3 * 30);
      assertTheClientsTimesAgreeWithLlamaCpps(requestLines(out.resolve("requests.jsonl.gz"), "latency"));
    } finally {
      assertThat(LlamaServerImage.containersMounting(docker, temp)).as("containers left behind").isEmpty();
    }
  }

  /**
   * The client's TTFT and decode time against llama.cpp's own account of the same requests, like
   * with like, request by request (requests.jsonl.gz keeps both).
   * <p>llama.cpp's {@code prompt_ms} runs from the moment its slot starts on a request to the
   * sampling of the first token, which comes from the prompt's last batch with no decode step of
   * its own (server-common.h: "the first token is free"); {@code predicted_ms} runs from that
   * token to the last, over predicted_n - 1 decode steps. The client's TTFT holds all of prompt_ms
   * plus what lies outside it: sending the request, llama-server's HTTP thread reading and
   * tokenizing it and handing it to the slot loop, the hand-off back, the SSE write and the client
   * reading the chunk. Its decode time (end of stream minus first chunk, the numerator of TPOT)
   * differs from predicted_ms by the way out of the last chunks less that of the first.
   * <ul>
   * <li>Every request's TTFT is at least its prompt_ms, by causality: both are durations on the
   * one kernel's monotonic clock (µs rounding aside). This holds on any machine.
   * <li>What lies outside prompt_ms is partly work done at the machine's speed, which prompt_ms
   * measures too (the same prompt and model every time), partly fixed: thread wake-ups (four
   * hand-offs between threads and processes, each of which a busy core can hold for a scheduler
   * tick) and the loopback. So its median is bounded by 10 ms plus half the median prompt_ms.
   * Measured on 2 cores: about 2.2 ms beside a prompt_ms of 10.1 ms (p50s 12.2 and 10.1 ms in a
   * run that failed the old 20 % bound), 6.9 ms beside 15.5 ms on an idle machine (where the old
   * bound failed too), 7.6 ms beside 60 ms at a load average of 8,
   * 12.3 ms beside 192 ms with the other core kept busy. If the outside part were all fixed, a
   * machine twice as fast would still meet the bound (6.9 ms against 13.9 ms); if it all scaled,
   * one twice as slow would too (13.8 ms against 25.5 ms).
   * <li>The decode-time difference is the same kind of delay (a chunk's way out), bounded the same.
   * </ul>
   * The median, not every request: a single request can lose several ms to the hypervisor or a
   * scheduler tick on any machine. Nothing here assumes how fast the machine is; no bound on
   * prompt_ms itself.
   */
  private static void assertTheClientsTimesAgreeWithLlamaCpps(List<JsonObject> requests) {
    assertThat(requests).hasSize(3 * 30).allSatisfy(r -> assertThat(r.getJsonObject(MetricKeys.SERVER_TIMINGS)).isNotNull());
    double[] prompt = new double[requests.size()];
    double[] outsidePrompt = new double[requests.size()];
    double[] decodeDifference = new double[requests.size()];
    for (int i = 0; i < requests.size(); i++) {
      JsonObject r = requests.get(i);
      JsonObject server = r.getJsonObject(MetricKeys.SERVER_TIMINGS);
      JsonArray chunks = r.getJsonArray("chunks_ms");
      double ttft = chunks.getDouble(0) - r.getDouble("t_send_ms");
      prompt[i] = server.getDouble("prompt_ms");
      outsidePrompt[i] = ttft - prompt[i];
      decodeDifference[i] = r.getDouble("t_end_ms") - chunks.getDouble(0) - server.getDouble("predicted_ms");
      assertThat(ttft).as("request %d: client TTFT %s ms against llama.cpp's prompt_ms %s ms", i, ttft, prompt[i])
          .isGreaterThanOrEqualTo(prompt[i] - 0.002);
    }
    double promptP50 = DistributionSummary.of(prompt).p50();
    double bound = 10 + 0.5 * promptP50;
    assertThat(DistributionSummary.of(outsidePrompt).p50())
        .as("median of client TTFT - prompt_ms in ms, of %s; median prompt_ms %s ms", Arrays.toString(outsidePrompt),
            promptP50)
        .isLessThanOrEqualTo(bound);
    assertThat(Math.abs(DistributionSummary.of(decodeDifference).p50()))
        .as("median of client decode time - predicted_ms in ms, of %s; median prompt_ms %s ms",
            Arrays.toString(decodeDifference), promptP50)
        .isLessThanOrEqualTo(bound);
  }

  /** The lines of requests.jsonl.gz for one benchmark. */
  private static List<JsonObject> requestLines(Path file, String benchmark) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(JsonObject::new)
          .filter(line -> benchmark.equals(line.getString("benchmark"))).toList();
    }
  }

  @Test
  void aNativeQuickRunOnTheRealLlamaServerWritesACompleteResultAndLeavesNoProcess() throws Exception {
    Path binary = LlamaServerBinary.require();
    Path home = temp.resolve("native-home");
    LlamaServerBinary.writeEngineOverride(home);
    Path model = TinyLlamaGguf.write(Files.createDirectories(temp.resolve("models")).resolve("tiny.gguf"));
    Path out = temp.resolve("native");

    int exit = new CommandLine(new SvcCommand()).execute("run", "--home", home.toString(), "--native",
        "-m", model.toString(), "-e", "llama_cpp", "-s", "quick", "-o", out.toString());

    assertThat(exit).isZero();
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.fieldNames()).containsAll(MetricKeys.TOP_LEVEL);
    assertThat(metrics.getString(MetricKeys.ENGINE)).isEqualTo("llama_cpp");
    assertThat(metrics.getString(MetricKeys.ENGINE_IMAGE)).isEqualTo("native:" + binary);
    assertThat(metrics.getBoolean(MetricKeys.PASSED)).isTrue();
    JsonObject throughput = metrics.getJsonArray(MetricKeys.RESULTS).getJsonObject(0);
    assertThat(throughput.getString(MetricKeys.TEST_NAME)).isEqualTo("throughput");
    JsonObject m = throughput.getJsonObject(MetricKeys.METRICS);
    assertThat(m.fieldNames()).containsAll(MetricKeys.PERFORMANCE);
    assertThat(m.getString(MetricKeys.TOKEN_COUNT_SOURCE)).isEqualTo(MetricKeys.TOKEN_COUNT_USAGE);
    assertThat(m.getLong(MetricKeys.ERROR_COUNT)).isZero();
    // the tiny model never emits EOS: the quick suite's 20 requests run to exactly 128 tokens each
    assertThat(m.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(20L * 128);
    assertThat(m.getJsonObject(MetricKeys.TTFT_MS).getDouble(MetricKeys.P50)).isPositive();
    JsonObject config = new JsonObject(Files.readString(out.resolve("config.json")));
    assertThat(config.getBoolean("native")).isTrue();
    assertThat(config.getBoolean("auto_pull")).isFalse();
    // the engine's own output is kept beside the results, without the log tag
    assertThat(Files.readAllLines(out.resolve(RunCommand.ENGINE_LOG)))
        .anyMatch(line -> line.contains("listening on http://127.0.0.1:"))
        .noneMatch(line -> line.startsWith(NativeLifecycle.OUTPUT_TAG));
    assertThat(ProcessHandle.current().descendants()).as("llama-server processes left behind")
        .noneMatch(p -> p.info().command().filter(binary.toString()::equals).isPresent());

    // what was measured: the server's own build, the command line it was started with, the model's bytes
    assertThat(metrics.getString(MetricKeys.ENGINE_VERSION)).isEqualTo(buildInfoOf(binary));
    assertThat(metrics.containsKey(MetricKeys.ENGINE_VERSION_REASON)).isFalse();
    int port = listeningPort(Files.readString(out.resolve(RunCommand.ENGINE_LOG)));
    List<String> expandedArgs = EngineCatalog.load(new SvcHome(home)).find("llama_cpp").orElseThrow().nativeCommand()
        .orElseThrow().expand(model.toString(), "tiny", port);
    assertThat(metrics.getJsonArray(MetricKeys.ENGINE_ARGS).getList())
        .containsExactlyElementsOf(concat(List.of(binary.toString()), expandedArgs));
    assertThat(metrics.getValue(MetricKeys.ENGINE_IMAGE_DIGEST)).isNull();
    String sha256 = FileDigest.sha256(model);
    assertThat(metrics.getString(MetricKeys.MODEL_DIGEST)).isEqualTo("sha256:" + sha256);
    assertThat(metrics.getInteger(MetricKeys.REPEATS)).isEqualTo(1);
    Path cache = home.resolve("cache").resolve(ModelDigest.CACHE_FILE);
    JsonObject entry = new JsonObject(Files.readString(cache)).getJsonObject(model.toRealPath().toString());
    assertThat(entry.getString("sha256")).isEqualTo(sha256);
    assertThat(entry.getLong("size")).isEqualTo(Files.size(model));

    // the next run on the same model takes its digest from the cache: a made-up one there shows it was not read again
    String planted = "ab".repeat(32);
    Files.writeString(cache, new JsonObject(Files.readString(cache)).put(model.toRealPath().toString(),
        entry.copy().put("sha256", planted)).encode());
    assertThat(modelDigestOfAnEndpointRun(home, model, "cached")).isEqualTo("sha256:" + planted);
    // touched: read again
    Files.setLastModifiedTime(model, FileTime.fromMillis(Files.getLastModifiedTime(model).toMillis() + 1000));
    assertThat(modelDigestOfAnEndpointRun(home, model, "touched")).isEqualTo("sha256:" + sha256);
    // changed: a new digest
    Files.write(model, new byte[] {1, 2, 3}, StandardOpenOption.APPEND);
    assertThat(modelDigestOfAnEndpointRun(home, model, "changed")).isEqualTo("sha256:" + FileDigest.sha256(model))
        .isNotEqualTo("sha256:" + sha256);
  }

  /** The model digest of a quick run of one benchmark against the emulator, with this home and -m. */
  private String modelDigestOfAnEndpointRun(Path home, Path model, String name) throws IOException {
    Path out = temp.resolve(name);
    int exit = new CommandLine(new SvcCommand()).execute("run", "--home", home.toString(), "--endpoint",
        "http://127.0.0.1:" + emulator.port(), "-m", model.toString(), "-e", "llama_cpp", "-s", "quick", "-o",
        out.toString());
    assertThat(exit).isZero();
    return new JsonObject(Files.readString(out.resolve("metrics.json"))).getString(MetricKeys.MODEL_DIGEST);
  }

  /** llama.cpp's build_info for this binary, from what its --version prints: {@code b<build>-<commit>}. */
  private static String buildInfoOf(Path binary) throws Exception {
    Process version = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
    String text = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(version.waitFor(30, TimeUnit.SECONDS)).isTrue();
    Matcher build = Pattern.compile("build (\\d+), commit ([0-9a-f]+)").matcher(text);
    assertThat(build.find()).as(text).isTrue();
    return "b" + build.group(1) + "-" + build.group(2);
  }

  private static int listeningPort(String engineLog) {
    Matcher listening = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)").matcher(engineLog);
    assertThat(listening.find()).as(engineLog).isTrue();
    return Integer.parseInt(listening.group(1));
  }

  private static List<String> concat(List<String> first, List<String> rest) {
    List<String> all = new java.util.ArrayList<>(first);
    all.addAll(rest);
    return all;
  }

  @Test
  void aNativeEngineWhoseBinaryIsMissingFailsWithASentenceAndExitsOne() throws Exception {
    Path home = Files.createDirectories(temp.resolve("missing-binary-home"));
    Path missing = temp.resolve("no-such-dir/llama-server");
    Files.writeString(home.resolve("engines.yaml"), "engines:\n  llama_cpp:\n    native:\n      binary: \"" + missing + "\"\n");
    Path model = TinyLlamaGguf.write(Files.createDirectories(temp.resolve("models")).resolve("tiny.gguf"));
    Path out = temp.resolve("missing-binary");

    Captured run = captureStderr(() -> new CommandLine(new SvcCommand()).execute("run", "--home", home.toString(),
        "--native", "-m", model.toString(), "-e", "llama_cpp", "-s", "quick", "-o", out.toString()));

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr()).contains("svc run: llama_cpp cannot run natively: " + missing + " does not exist")
        .doesNotContain("Exception").doesNotContain("\tat ");
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    assertThat(metrics.getBoolean(MetricKeys.PASSED)).isFalse();
    assertThat(metrics.getString("error")).contains(missing + " does not exist");
    assertThat(metrics.getValue(MetricKeys.ENGINE_IMAGE)).isNull();
  }

  @Test
  void nativeRefusesAnEndpointAnAutoPullAndAnEngineWithoutANativeCommand() throws Exception {
    Path out = temp.resolve("never");
    Path model = TinyLlamaGguf.write(Files.createDirectories(temp.resolve("models")).resolve("tiny.gguf"));
    String[] common = {"run", "--home", temp.resolve("home").toString(), "--native", "-m", model.toString(),
        "-o", out.toString()};

    Captured withEndpoint = captureStderr(() -> run("-e", "llama_cpp", "--native", "-o", out.toString()));
    Captured withPull = captureStderr(() -> new CommandLine(new SvcCommand()).execute(
        concat(common, "-e", "llama_cpp", "--auto-pull")));
    Captured ollama = captureStderr(() -> new CommandLine(new SvcCommand()).execute(concat(common, "-e", "ollama")));

    assertThat(withEndpoint.exit()).isEqualTo(2);
    assertThat(withEndpoint.stderr()).contains("--native starts the engine and --endpoint benchmarks one already running");
    assertThat(withPull.exit()).isEqualTo(2);
    assertThat(withPull.stderr()).contains("--auto-pull pulls a container image; --native runs no container");
    assertThat(ollama.exit()).isEqualTo(2);
    assertThat(ollama.stderr()).contains("svc run: ollama cannot run as a local process: the engine catalog gives it no"
        + " native command (engines.ollama.native in engines.yaml). Run it yourself and pass its URL with --endpoint.");
    assertThat(out).doesNotExist();
  }

  private record Captured(int exit, String stderr) {}

  private static Captured captureStderr(IntSupplier command) {
    PrintStream original = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      int exit = command.getAsInt();
      return new Captured(exit, bytes.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(original);
    }
  }

  private static String[] concat(String[] first, String... rest) {
    String[] all = Arrays.copyOf(first, first.length + rest.length);
    System.arraycopy(rest, 0, all, first.length, rest.length);
    return all;
  }

  @Test
  void usageMistakesExitTwoAndWriteNothing() {
    Path out = temp.resolve("never");
    assertThat(run("-e", "nonesuch", "-o", out.toString())).isEqualTo(2);
    assertThat(run("-e", "llama_cpp", "-s", "nonesuch", "-o", out.toString())).isEqualTo(2);
    assertThat(run("-e", "llama_cpp", "-s", "quick", "-b", "mmlu", "-o", out.toString())).isEqualTo(2);
    assertThat(run("-e", "llama_cpp", "--load", "burst:3", "-o", out.toString())).isEqualTo(2);
    assertThat(run("-e", "llama_cpp", "--engine-port", "70000", "-o", out.toString())).isEqualTo(2);
    assertThat(run("-e", "llama_cpp", "--prefix-tokens", "1000001", "-o", out.toString())).isEqualTo(2);
    assertThat(out).doesNotExist();
  }
}
