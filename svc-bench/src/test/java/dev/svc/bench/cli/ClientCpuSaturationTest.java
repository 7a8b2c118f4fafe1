package dev.svc.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.svc.bench.measure.ClientCpu;
import dev.svc.bench.perf.EmulatorProcess;
import dev.svc.core.metrics.MetricKeys;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code svc run} in a JVM of its own against the engine emulator (another JVM, at the lowest
 * priority, so that it never takes a core from the client) at a closed-loop load that keeps the
 * client busy: 32 requests in flight, each a few short chunks. Pinned with {@code taskset -c 0} to
 * one core on which busy processes spin, the client cannot keep up, and its benchmark is marked
 * invalid with the reason; with its usual cores and no spinner, the same run is valid.
 */
class ClientCpuSaturationTest {

  private static final String SUITE = """
      benchmarks:
        throughput:
          iterations: 300
          max_tokens: 8
          load: concurrency:32
          warmup_requests: 5
      """;

  /**
   * Busy processes on the client's core: with five, a client thread ready to run waits for about
   * five sixths of the time (more with several client threads), clear of the limit of 80 %; with
   * three it waited 80.2 to 83 %, too close. A client with its usual cores on a busy machine waited
   * 61 to 66 %.
   */
  private static final int SPINNERS = 5;

  @TempDir
  Path temp;

  private EmulatorProcess emulator;
  private final List<Process> started = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    emulator = EmulatorProcess.start(1, 1, 8);
    Files.createDirectories(temp.resolve("home/suites"));
    Files.writeString(temp.resolve("home/suites/busy.yaml"), SUITE);
  }

  @AfterEach
  void stop() throws Exception {
    for (Process process : started) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    emulator.close();
  }

  @Test
  void aClientPinnedToACoreThatABusyProcessSharesIsMarkedInvalid() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "taskset (util-linux) is not installed");
    for (int i = 0; i < SPINNERS; i++) {
      spin(0);
    }

    JsonObject result = run(List.of("/usr/bin/taskset", "-c", "0"), "pinned");

    JsonObject cpu = result.getJsonObject(MetricKeys.METRICS).getJsonObject(MetricKeys.CLIENT_CPU);
    assertThat(cpu.getInteger(MetricKeys.CLIENT_CORES)).as("the cores of taskset -c 0").isEqualTo(1);
    assertThat(cpu.getDouble(MetricKeys.CLIENT_CORES_IDLE)).as(cpu.encode()).isLessThan(ClientCpu.IDLE_LIMIT);
    assertThat(result.getBoolean(MetricKeys.VALID)).as(cpu.encode()).isFalse();
    assertThat(result.getString(MetricKeys.INVALID_REASON))
        .startsWith("the client, not the engine, was the bottleneck: its 1 core(s) were");
  }

  @Test
  void theSameRunWithItsUsualCoresIsValid() throws Exception {
    JsonObject result = run(List.of(), "free");

    JsonObject cpu = result.getJsonObject(MetricKeys.METRICS).getJsonObject(MetricKeys.CLIENT_CPU);
    assertThat(cpu.getInteger(MetricKeys.CLIENT_CORES)).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(cpu.getDouble(MetricKeys.CLIENT_CPU_S)).as("the client's CPU while it sent 300 requests").isPositive();
    assertThat(cpu.getValue(MetricKeys.CLIENT_CORES_IDLE)).isNotNull();
    assertThat(result.getBoolean(MetricKeys.VALID)).as(result.getString(MetricKeys.INVALID_REASON)).isTrue();
  }

  /** A busy process pinned to {@code core}, killed after the test. */
  private void spin(int core) throws Exception {
    started.add(new ProcessBuilder("/usr/bin/taskset", "-c", String.valueOf(core), "sh", "-c", "while :; do :; done")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
  }

  /** Runs the busy suite with {@code prefix} before the JVM's command; the benchmark's entry of metrics.json. */
  private JsonObject run(List<String> prefix, String name) throws Exception {
    Path out = temp.resolve(name);
    List<String> command = new ArrayList<>(prefix);
    command.addAll(SvcRunMain.command(List.of("--home", temp.resolve("home").toString(), "-m",
        temp.resolve("models/tiny.gguf").toString(), "-e", "llama_cpp", "-s", "busy", "--endpoint",
        "http://127.0.0.1:" + emulator.port(), "-o", out.toString())));
    Process svc = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(temp.resolve(name + ".log").toFile()).start();
    started.add(svc);
    assertThat(svc.waitFor(5, TimeUnit.MINUTES)).as("svc run ended").isTrue();
    assertThat(svc.exitValue()).as(Files.readString(temp.resolve(name + ".log"))).isZero();
    JsonObject metrics = new JsonObject(Files.readString(out.resolve("metrics.json")));
    JsonObject result = metrics.getJsonArray(MetricKeys.RESULTS).getJsonObject(0);
    System.out.println("client_cpu, " + name + ": " + result.getJsonObject(MetricKeys.METRICS)
        .getJsonObject(MetricKeys.CLIENT_CPU).encode());
    return result;
  }
}
