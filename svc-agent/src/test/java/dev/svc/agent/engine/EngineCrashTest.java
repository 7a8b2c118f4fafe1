package dev.svc.agent.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Frame;
import dev.svc.agent.AgentBus;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, fault 3: the engine dies mid-benchmark. The agent's engine verticle runs a test the way
 * a real agent does by default (svc's own {@code svc run} as a child process, llama.cpp's
 * llama-server in a container on the real dockerd); the test kills the llama-server process with
 * SIGKILL while the benchmark runs. This level (no server, no agent JVM) runs every part that acts
 * on the crash: svc run's engine lifecycle notices it, the agent reports it with the log lines; the
 * server only stores what the agent sends (the uplink is played here, answering like a spool).
 */
class EngineCrashTest {

  /**
   * The bound on noticing a dead engine and reporting the test failed: a fifth of the request idle
   * timeout (300 s) and of the health timeout (300 s), so a run that waited on either would fail it.
   */
  static final Duration BOUND = Duration.ofSeconds(60);

  @TempDir
  Path temp;

  private Vertx vertx;
  private DockerClient docker;
  private AgentHome home;
  private Path storage;
  private final List<JsonObject> reports = new CopyOnWriteArrayList<>();
  private final List<String> uplinked = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    docker = LlamaServerImage.requireDockerWithImage();
    home = new AgentHome(temp.resolve("home"));
    LlamaServerImage.writeEngineOverride(home.root());
    Files.createDirectories(home.root().resolve("suites"));
    Files.writeString(home.root().resolve("suites/endless.yaml"),
        "benchmarks:\n  latency:\n    iterations: 1000000\n    max_tokens: 64\n");
    storage = temp.resolve("storage");
    Files.createDirectories(storage);
    TinyLlamaGguf.write(storage.resolve("crash.gguf"));
    Files.writeString(home.settingsCache(), new JsonObject().put("model_storage_dir", storage.toString())
        .put("auto_cleanup", "false").put("kitt_image", "").encode());
    vertx = Vertx.vertx();
    vertx.eventBus().<JsonObject>consumer(AgentBus.UPLINK_STATUS, m -> {
      if (!"running".equals(m.body().getString("status"))) {
        reports.add(m.body());
      }
      m.reply(new JsonObject());
    });
    vertx.eventBus().<JsonObject>consumer(AgentBus.UPLINK_RESULT, m -> {
      reports.add(m.body());
      m.reply(new JsonObject());
    });
    vertx.eventBus().<JsonObject>consumer(AgentBus.UPLINK_LOGS, m -> {
      m.body().getJsonArray("lines").forEach(l -> uplinked.add(String.valueOf(l)));
      m.reply(new JsonObject());
    });
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    for (Container c : RunContainers.list(docker, "crash-c1")) {
      docker.removeContainerCmd(c.getId()).withForce(true).exec();
    }
  }

  @Test
  void anEngineKilledMidBenchmarkFailsTheTestWithItsLastLogLinesWithinTheBound() throws Exception {
    AgentConfig config = new AgentConfig("https://127.0.0.1:1", "token", "agent-under-test", 8090, null, storage.toString(), "",
        "", null, null, "nvidia-smi-absent", "mount-absent");
    await(vertx.deployVerticle(new EngineLifecycleVerticle(home, config)));
    JsonObject command = new JsonObject().put("command_id", "crash-c1").put("test_id", "t1").put("type", "run_test")
        .put("payload", new JsonObject().put("model_path", "crash.gguf").put("engine_name", "llama_cpp")
            .put("benchmark_name", "latency").put("suite_name", "endless").put("force", false));
    assertThat(await(vertx.eventBus().<JsonObject>request(AgentBus.ENGINE_COMMAND, command)).body().getBoolean("accepted"))
        .isTrue();

    waitFor(() -> RunContainers.list(docker, "crash-c1").stream().anyMatch(c -> "running".equals(c.getState())),
        Duration.ofMinutes(2), "the engine container");
    String container = RunContainers.list(docker, "crash-c1").get(0).getId();
    // everything the engine writes, as it writes it, until it dies
    List<String> engineLines = new CopyOnWriteArrayList<>();
    ResultCallback.Adapter<Frame> follow = ContainerBenchmark.followLines(docker, container, engineLines::add);
    // mid-benchmark: the suite's benchmark has begun and requests were served
    waitFor(() -> uplinked.stream().anyMatch(l -> l.startsWith("[1/1] latency")), Duration.ofMinutes(2),
        "the benchmark to start");
    int servedBefore = engineLines.size();
    waitFor(() -> engineLines.size() > servedBefore + 10, Duration.ofMinutes(1), "requests to be served");

    long enginePid = docker.inspectContainerCmd(container).exec().getState().getPidLong();
    ProcessHandle engine = ProcessHandle.of(enginePid).orElseThrow();
    assertThat(engine.info().command().orElse("")).endsWith("llama-server");
    long killed = System.nanoTime();
    assertThat(engine.destroyForcibly()).isTrue();

    waitFor(() -> !reports.isEmpty(), BOUND.plusSeconds(30), "the test to be reported failed");
    Duration toFailed = Duration.ofNanos(System.nanoTime() - killed);
    assertThat(follow.awaitCompletion(10, TimeUnit.SECONDS)).as("the engine's log stream ended").isTrue();
    waitFor(() -> !(await(vertx.eventBus().<JsonObject>request(AgentBus.ENGINE_STATE, new JsonObject())).body()
        .getBoolean("busy")), Duration.ofSeconds(30), "the agent to be idle");

    JsonObject report = reports.get(0);
    // the lines the test log holds under "Last log lines of kitt-…:", against what the engine wrote last
    int header = indexOf(uplinked, "Last log lines of kitt-");
    List<String> tail = new ArrayList<>();
    for (int i = header + 1; header >= 0 && i < uplinked.size() && uplinked.get(i).startsWith("  "); i++) {
      tail.add(uplinked.get(i).substring(2));
    }
    List<String> written = engineLines.stream().map(String::stripTrailing).toList();
    List<String> lastWritten = written.subList(Math.max(0, written.size() - tail.size()), written.size());
    long leftContainers = RunContainers.list(docker, "crash-c1").size();
    FaultCounts.of("EngineCrashTest: llama-server killed mid-benchmark (container, local svc run)")
        .put("engine_lines_written", written.size()).put("tail_lines_in_test_log", tail.size())
        .put("tail_lines_matching", tail.equals(lastWritten) ? tail.size() : 0)
        .put("reports", reports.size()).put("containers_left", leftContainers)
        .put("ms_to_failed", toFailed.toMillis()).put("status", report.getString("status")).report();

    assertThat(reports).as(reports.toString()).hasSize(1);
    assertThat(report.getString("status")).isEqualTo("failed");
    assertThat(report.getString("error")).as(report.encode())
        .contains("llama_cpp's container kitt-").contains("exited with code 137 during the benchmark");
    assertThat(tail).as(String.join("\n", uplinked)).hasSizeBetween(1, 20);
    assertThat(tail).isEqualTo(lastWritten);
    assertThat(uplinked).as("no stack trace in the test's log")
        .noneMatch(l -> l.startsWith("\tat ") || l.contains("Unhandled exception"));
    assertThat(toFailed).isLessThan(BOUND);
    assertThat(leftContainers).isZero();
    assertThat(engine.isAlive()).isFalse();
  }

  private static int indexOf(List<String> lines, String part) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(part)) {
        return i;
      }
    }
    return -1;
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  interface Check {
    boolean holds() throws Exception;
  }

  /** Polls a condition until it holds or the deadline passes. */
  private static void waitFor(Check check, Duration timeout, String what) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
      }
      Thread.sleep(50); // polling interval of a deadline-bounded condition, not a synchronisation
    }
  }
}
