package dev.svc.agent.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import dev.svc.agent.AgentBus;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.storage.ShareMounter;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine verticle on a real Vert.x with real parts: the tiny GGUF model, the real llama.cpp
 * image on the real dockerd, svc's own {@code svc run} as a child process (the local fallback: no
 * svc image here). The test plays the uplink, answering like a spool; the share is a local
 * directory behind a stand-in mounter (no NFS server here).
 */
class EngineLifecycleVerticleTest {

  @TempDir
  Path temp;

  private Vertx vertx;
  private DockerClient docker;
  private AgentHome home;
  private Path storage;
  private Path share;
  private final List<String> mounts = new CopyOnWriteArrayList<>();
  private final List<JsonObject> statuses = new CopyOnWriteArrayList<>();
  private final List<JsonObject> results = new CopyOnWriteArrayList<>();
  private final List<JsonObject> batches = new CopyOnWriteArrayList<>();
  private final List<JsonObject> localLines = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    docker = LlamaServerImage.requireDockerWithImage();
    home = new AgentHome(temp.resolve("home"));
    LlamaServerImage.writeEngineOverride(home.root());
    Files.createDirectories(home.root().resolve("suites"));
    // one quick benchmark, and one that runs until it is stopped
    Files.writeString(home.root().resolve("suites/tiny.yaml"), "benchmarks:\n  latency:\n    iterations: 3\n    max_tokens: 16\n");
    Files.writeString(home.root().resolve("suites/endless.yaml"),
        "benchmarks:\n  latency:\n    iterations: 1000000\n    max_tokens: 64\n");
    storage = temp.resolve("storage");
    share = temp.resolve("share");
    Files.createDirectories(share.resolve("llama"));
    TinyLlamaGguf.write(share.resolve("llama/tiny.gguf"));
    Files.writeString(home.settingsCache(), new JsonObject().put("model_storage_dir", storage.toString())
        .put("model_share_source", "nfs.example:/models").put("model_share_mount", share.toString())
        .put("auto_cleanup", "true").put("heartbeat_interval_s", "30").put("kitt_image", "").encode());
    vertx = Vertx.vertx();
    playTheUplink();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    for (Container c : docker.listContainersCmd().withShowAll(true).exec()) {
      if (c.getLabels() != null && c.getLabels().getOrDefault("dev.svc.run", "").startsWith("it-")) {
        docker.removeContainerCmd(c.getId()).withForce(true).exec();
      }
    }
  }

  private void playTheUplink() {
    vertx.eventBus().<JsonObject>consumer(AgentBus.UPLINK_STATUS, m -> {
      statuses.add(m.body());
      m.reply(new JsonObject());
    });
    vertx.eventBus().<JsonObject>consumer(AgentBus.UPLINK_RESULT, m -> {
      results.add(m.body());
      m.reply(new JsonObject());
    });
    vertx.eventBus().<JsonObject>consumer(AgentBus.UPLINK_LOGS, m -> {
      batches.add(m.body());
      m.reply(new JsonObject());
    });
    vertx.eventBus().<JsonObject>consumer(AgentBus.LOG, m -> localLines.add(m.body()));
  }

  private String deploy() throws Exception {
    AgentConfig config = new AgentConfig("https://127.0.0.1:1", "token", "agent-under-test", 8090, null, storage.toString(), "",
        "", null, null, "nvidia-smi-absent", "mount-absent");
    ShareMounter standIn = (source, mountPoint, log) -> {
      mounts.add(source + " " + mountPoint);
      log.accept("Model share: " + mountPoint + " is mounted (stand-in)");
    };
    return await(vertx.deployVerticle(new EngineLifecycleVerticle(home, config, standIn)));
  }

  private JsonObject send(String address, JsonObject body) throws Exception {
    return await(vertx.eventBus().<JsonObject>request(address, body)).body();
  }

  private static JsonObject runTest(String commandId, String testId, String model, String suite) {
    return new JsonObject().put("command_id", commandId).put("test_id", testId).put("type", "run_test")
        .put("payload", new JsonObject().put("model_path", model).put("engine_name", "llama_cpp")
            .put("benchmark_name", "latency").put("suite_name", suite).put("force", false));
  }

  @Test
  void aRunTestCopiesTheModelFromTheShareRunsLlamaCppReportsTheResultAndCleansUp() throws Exception {
    deploy();
    assertThat(send(AgentBus.ENGINE_COMMAND, runTest("it-c1", "t1", "llama/tiny.gguf", "tiny")).getBoolean("accepted"))
        .isTrue();
    // resent until acknowledged: accepted again, nothing more
    assertThat(send(AgentBus.ENGINE_COMMAND, runTest("it-c1", "t1", "llama/tiny.gguf", "tiny")).getBoolean("accepted"))
        .isTrue();
    JsonObject busy = send(AgentBus.ENGINE_COMMAND, runTest("it-c2", "t2", "llama/tiny.gguf", "tiny"));
    assertThat(busy.getBoolean("accepted")).isFalse();
    assertThat(busy.getString("reason")).contains("Busy with test t1");
    assertThat(send(AgentBus.ENGINE_STATE, new JsonObject())).isEqualTo(new JsonObject().put("busy", true)
        .put("test_id", "t1").put("command_id", "it-c1").put("status", "running"));

    waitFor(() -> !results.isEmpty(), 180, "the result");
    JsonObject result = results.get(0);
    assertThat(result.getString("status")).as(result.encodePrettily()).isEqualTo("completed");
    assertThat(result.getString("command_id")).isEqualTo("it-c1");
    assertThat(result.getString("test_id")).isEqualTo("t1");
    assertThat(result.getValue("error")).isNull();
    JsonObject metrics = result.getJsonObject("result_data").getJsonArray(MetricKeys.RESULTS).getJsonObject(0)
        .getJsonObject(MetricKeys.METRICS);
    assertThat(metrics.getJsonObject(MetricKeys.TTFT_MS).getDouble(MetricKeys.P50)).isPositive();
    assertThat(metrics.getJsonObject(MetricKeys.TPOT_MS).getDouble(MetricKeys.P50)).isPositive();
    assertThat(metrics.getLong(MetricKeys.TOTAL_TOKENS_GENERATED)).isEqualTo(3L * 16);
    assertThat(result.getJsonObject("result_data").getString(MetricKeys.ENGINE_IMAGE)).isEqualTo(LlamaServerImage.TAG);

    assertThat(statuses).extracting(s -> s.getString("status")).containsExactly("running");
    assertThat(mounts).containsExactly("nfs.example:/models " + share);
    List<String> uplinked = batches.stream().flatMap(b -> b.getJsonArray("lines").stream().map(String::valueOf)).toList();
    assertThat(batches).allMatch(b -> "t1".equals(b.getString("test_id")) && "it-c1".equals(b.getString("command_id")));
    assertThat(uplinked).anyMatch(l -> l.startsWith("Model workflow 1/3"))
        .anyMatch(l -> l.startsWith("Model workflow 3/3"))
        .anyMatch(l -> l.startsWith("Copying model: 100%"))
        .anyMatch(l -> l.contains("kitt-")) // the engine container's lifecycle, from svc run
        .anyMatch(l -> l.startsWith("auto_cleanup: deleted the local copy"));
    assertThat(localLines.stream().map(l -> l.getString("line")).toList()).containsExactlyElementsOf(uplinked);
    assertThat(localLines).allMatch(l -> "it-c1".equals(l.getString("command_id")));

    // auto_cleanup removed the copy this run made; the share keeps its model
    assertThat(storage.resolve("llama/tiny.gguf")).doesNotExist();
    assertThat(storage.resolve("llama")).doesNotExist();
    assertThat(share.resolve("llama/tiny.gguf")).isRegularFile();
    assertThat(home.results().resolve("it-c1/metrics.json")).isRegularFile();
    assertThat(runContainers("it-c1")).isEmpty();
    assertThat(LlamaServerImage.containersMounting(docker, temp)).as("containers left behind").isEmpty();

    waitFor(() -> !send(AgentBus.ENGINE_STATE, new JsonObject()).getBoolean("busy"), 10, "idle");
    // a resend after the end is still the same command: nothing runs again
    int before = statuses.size();
    assertThat(send(AgentBus.ENGINE_COMMAND, runTest("it-c1", "t1", "llama/tiny.gguf", "tiny")).getBoolean("accepted"))
        .isTrue();
    assertThat(send(AgentBus.ENGINE_STATE, new JsonObject()).getBoolean("busy")).isFalse();
    assertThat(statuses).hasSize(before);
  }

  @Test
  void cancelEndsTheProcessAndTheEngineContainerWithinFiveSecondsAndReportsCancelledByUser() throws Exception {
    Files.createDirectories(storage);
    TinyLlamaGguf.write(storage.resolve("local.gguf"));
    deploy();
    assertThat(send(AgentBus.ENGINE_COMMAND, runTest("it-c3", "t3", "local.gguf", "endless")).getBoolean("accepted")).isTrue();
    // the engine container svc run started carries the run's label
    waitFor(() -> runContainers("it-c3").stream().anyMatch(c -> "running".equals(c.getState())), 120, "the engine container");
    long pid = journalPid("it-c3");
    assertThat(ProcessHandle.of(pid)).isPresent();

    long started = System.nanoTime();
    JsonObject answer = send(AgentBus.ENGINE_CANCEL, new JsonObject().put("test_id", "t3"));
    double seconds = (System.nanoTime() - started) / 1e9;
    assertThat(answer.getBoolean("cancelled")).isTrue();
    assertThat(seconds).as("cancel took %.1f s", seconds).isLessThan(5.0);
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("svc run process alive").isFalse();
    assertThat(runContainers("it-c3")).as("the run's containers").isEmpty();

    waitFor(() -> statuses.stream().anyMatch(s -> "failed".equals(s.getString("status"))), 30, "the failed status");
    assertThat(statuses).extracting(s -> s.getString("status") + ":" + s.getString("error"))
        .containsExactly("running:null", "failed:Cancelled by user");
    assertThat(results).isEmpty();
    // the model was already in storage: not this run's copy, so auto_cleanup keeps it
    assertThat(storage.resolve("local.gguf")).isRegularFile();
    assertThat(send(AgentBus.ENGINE_CANCEL, new JsonObject().put("test_id", "t3")).getBoolean("cancelled")).isFalse();
  }

  @Test
  void undeployingDuringABenchmarkRemovesItAndReportsAgentStopped() throws Exception {
    Files.createDirectories(storage);
    TinyLlamaGguf.write(storage.resolve("local.gguf"));
    String id = deploy();
    assertThat(send(AgentBus.ENGINE_COMMAND, runTest("it-c4", "t4", "local.gguf", "endless")).getBoolean("accepted")).isTrue();
    waitFor(() -> runContainers("it-c4").stream().anyMatch(c -> "running".equals(c.getState())), 120, "the engine container");
    long pid = journalPid("it-c4");
    await(vertx.undeploy(id));
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(runContainers("it-c4")).isEmpty();
    assertThat(statuses).extracting(s -> s.getString("status") + ":" + s.getString("error"))
        .containsExactly("running:null", "failed:Agent stopped during the benchmark");
  }

  @Test
  void aBenchmarkInterruptedByARestartIsReportedFailedAndItsCommandIsNotRunAgain() throws Exception {
    CommandJournal journal = new CommandJournal(home.root().resolve("jobs"));
    journal.put(JournalEntry.parse(new JsonObject().put("command_id", "it-c5").put("test_id", "t5").put("type", "run_test")
        .put("payload", runTest("it-c5", "t5", "x.gguf", "tiny").getJsonObject("payload")).put("state", "running")));
    deploy();
    waitFor(() -> !statuses.isEmpty(), 30, "the report of the interrupted test");
    assertThat(statuses).containsExactly(new JsonObject().put("test_id", "t5").put("command_id", "it-c5")
        .put("status", "failed").put("error", "Agent restarted during the benchmark"));
    waitFor(() -> journal.get("it-c5").orElseThrow().state() == JournalEntry.State.DONE, 10, "the record done");
    assertThat(send(AgentBus.ENGINE_COMMAND, runTest("it-c5", "t5", "x.gguf", "tiny")).getBoolean("accepted")).isTrue();
    assertThat(send(AgentBus.ENGINE_STATE, new JsonObject()).getBoolean("busy")).isFalse();
    assertThat(statuses).hasSize(1);
  }

  @Test
  void aModelOutsideTheShareIsRefusedAndNothingIsCopiedOrRun() throws Exception {
    Path outside = temp.resolve("outside");
    Files.createDirectories(outside);
    TinyLlamaGguf.write(outside.resolve("secret.gguf"));
    Files.createSymbolicLink(share.resolve("escape.gguf"), outside.resolve("secret.gguf"));
    deploy();
    assertThat(send(AgentBus.ENGINE_COMMAND, runTest("it-c6", "t6", "escape.gguf", "tiny")).getBoolean("accepted")).isTrue();
    waitFor(() -> statuses.size() >= 2, 30, "the failure");
    assertThat(statuses.get(1).getString("status")).isEqualTo("failed");
    assertThat(statuses.get(1).getString("error")).contains("outside the share mount root").contains("refused");
    assertThat(storage.resolve("escape.gguf")).doesNotExist();
    assertThat(home.results().resolve("it-c6")).doesNotExist();
    assertThat(results).isEmpty();
  }

  @Test
  void cleanupStorageDeletesCachedModelsAndRefusesAPathOutsideTheStorage() throws Exception {
    Files.createDirectories(storage.resolve("a"));
    Files.writeString(storage.resolve("a/model.gguf"), "x");
    Files.writeString(storage.resolve("b.gguf"), "y");
    Path outside = Files.writeString(temp.resolve("keep.gguf"), "z");
    deploy();
    JsonObject one = new JsonObject().put("command_id", "it-k1").put("type", "cleanup_storage")
        .put("payload", new JsonObject().put("model_path", "b.gguf"));
    assertThat(send(AgentBus.ENGINE_COMMAND, one).getBoolean("accepted")).isTrue();
    waitFor(() -> !Files.exists(storage.resolve("b.gguf")), 10, "b.gguf deleted");
    assertThat(storage.resolve("a/model.gguf")).exists();
    JsonObject escape = new JsonObject().put("command_id", "it-k2").put("type", "cleanup_storage")
        .put("payload", new JsonObject().put("model_path", "../keep.gguf"));
    assertThat(send(AgentBus.ENGINE_COMMAND, escape).getBoolean("accepted")).isTrue();
    JsonObject all = new JsonObject().put("command_id", "it-k3").put("type", "cleanup_storage")
        .put("payload", new JsonObject().put("model_path", ""));
    assertThat(send(AgentBus.ENGINE_COMMAND, all).getBoolean("accepted")).isTrue();
    waitFor(() -> !Files.exists(storage.resolve("a")), 10, "every model deleted");
    assertThat(outside).isRegularFile();
    assertThat(storage).isEmptyDirectory();
  }

  private List<Container> runContainers(String commandId) {
    return RunContainers.list(docker, commandId);
  }

  private long journalPid(String commandId) throws Exception {
    CommandJournal journal = new CommandJournal(home.root().resolve("jobs"));
    waitFor(() -> journal.get(commandId).map(r -> r.pid() != null).orElse(false), 30, "the pid in the journal");
    return journal.get(commandId).orElseThrow().pid();
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  interface Check {
    boolean holds() throws Exception;
  }

  /** Polls a condition until it holds or the deadline passes. */
  private static void waitFor(Check check, int seconds, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out after " + seconds + " s waiting for " + what);
      }
      Thread.onSpinWait();
      Thread.sleep(50); // polling interval of a deadline-bounded condition, not a synchronisation
    }
  }
}
