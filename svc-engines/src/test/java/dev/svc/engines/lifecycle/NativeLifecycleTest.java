package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.codec.GenerationRequest;
import dev.svc.engines.fixtures.CodecStream;
import dev.svc.engines.fixtures.LlamaServerBinary;
import dev.svc.engines.fixtures.NeverReady;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.RecordingSink;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code svc run --native}'s engine runs: llama.cpp's real llama-server binary started as a local
 * process on a tiny generated GGUF model, through the same stages as a container.
 */
class NativeLifecycleTest {

  private static final String SECRET = "secret-token";

  @TempDir Path dir;
  private Path models;
  private Path model;
  private Path binary;
  private EngineSpec llamaCpp;
  private final RecordingSink log = new RecordingSink();

  @BeforeEach
  void model() throws IOException {
    binary = LlamaServerBinary.require();
    models = Files.createDirectories(dir.resolve("models"));
    model = TinyLlamaGguf.write(models.resolve("tiny.gguf"));
    llamaCpp = LlamaServerBinary.catalog(dir.resolve("home")).find("llama_cpp").orElseThrow();
  }

  @AfterEach
  void killLeftovers() {
    log.startedProcesses().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
  }

  private EngineLaunch.Builder launch(EngineSpec engine, Path modelPath) {
    return EngineLaunch.builder(engine, modelPath)
        .port(LoopbackPort.free())
        .env("HF_TOKEN", SECRET)
        .extraArgs(LlamaServerImage.CPU_ARGS);
  }

  private static NativeLifecycle lifecycle(Duration timeout) {
    return new NativeLifecycle(new HealthPolicy(Duration.ofMillis(20), Duration.ofMillis(400), timeout),
        EngineRunner.STOP_GRACE);
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private record Served(long pid, List<String> arguments, List<String> environment, boolean aliveWhileServing,
      CodecStream.Result completion, CodecStream.Result chat) {}

  @Test
  void llamaCppRunsAsALocalProcessThroughEveryStageAndLeavesNoProcess() throws IOException {
    EngineLaunch launch = launch(llamaCpp, model).build();
    NativeLifecycle lifecycle = lifecycle(Duration.ofSeconds(60));

    Served served = lifecycle.run(launch, log, engine -> {
      long pid = ((EngineIdentity.LocalProcess) engine.identity()).pid();
      ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
      List<String> environment = Arrays.asList(
          Files.readString(Path.of("/proc", Long.toString(pid), "environ"), StandardCharsets.UTF_8).split("\0"));
      return new Served(pid, Arrays.asList(process.info().arguments().orElseThrow()), environment, process.isAlive(),
          CodecStream.send(engine, GenerationRequest.completion(engine.modelName(), "Once upon a time", 12)),
          CodecStream.send(engine, GenerationRequest.chat(engine.modelName(), "Say something.", 7)));
    });

    // the catalog's native command, on 127.0.0.1 and the launch's port, with the launch's environment
    assertThat(served.aliveWhileServing()).isTrue();
    assertThat(served.arguments()).containsSequence("-m", model.toString())
        .containsSequence("--host", "127.0.0.1")
        .containsSequence("--port", Integer.toString(launch.port()))
        .containsSequence("-a", "tiny")
        .containsSequence("-c", "512");
    assertThat(served.environment()).contains("HF_TOKEN=" + SECRET);

    // a streaming completion and a chat turn return exactly max_tokens tokens
    assertThat(served.completion().status()).isEqualTo(200);
    assertThat(served.completion().done()).isTrue();
    assertThat(served.completion().usage().completionTokens()).isEqualTo(12);
    assertThat(served.completion().pieces()).hasSizeGreaterThan(1);
    assertThat(served.completion().text()).isNotBlank().matches("[\\x20-\\x7E]+");
    assertThat(served.chat().status()).isEqualTo(200);
    assertThat(served.chat().usage().completionTokens()).isEqualTo(7);

    // stopped: the process is gone
    assertThat(alive(served.pid())).as("llama-server (pid %d) after the run", served.pid()).isFalse();
    String name = "llama-server (pid " + served.pid() + ")";

    // the stages in order, without an image stage; the engine's own output in the log
    List<String> lines = log.lines();
    List<Integer> stageStarts = new ArrayList<>();
    for (LifecycleStage stage : List.of(LifecycleStage.COMPATIBILITY, LifecycleStage.CREATE, LifecycleStage.HEALTH,
        LifecycleStage.BENCHMARK, LifecycleStage.CLEANUP)) {
      stageStarts.add(log.indexOf(stage.tag()));
    }
    assertThat(stageStarts).doesNotContain(-1).isSorted();
    assertThat(log.indexOf(LifecycleStage.IMAGE.tag())).isNegative();
    assertThat(lines).contains("[compatibility] llama_cpp can run tiny.gguf as a local process");
    assertThat(lines).contains("[create] HF_TOKEN=*** " + binary + " -m " + model + " --host 127.0.0.1 --port "
        + launch.port() + " -a tiny --n-gpu-layers 999 " + String.join(" ", LlamaServerImage.CPU_ARGS));
    assertThat(lines).contains("[create] Started " + name);
    // loading (the engine's own output says so), then healthy
    int loading = log.indexOf("load_model: loading model");
    assertThat(loading).as("llama-server's loading line in %s", lines).isGreaterThan(log.indexOf("[create] Started"));
    assertThat(lines.get(loading)).startsWith(NativeLifecycle.OUTPUT_TAG + " ").contains(model.toString());
    assertThat(log.indexOf("answered 200")).isGreaterThan(loading);
    assertThat(lines).contains("[cleanup] Stopping " + name + " (SIGTERM)");
    assertThat(lines).anyMatch(l -> l.startsWith("[cleanup] Stopped " + name + ": it exited with code "));
    assertThat(log.indexOf("[cleanup] Stopping")).isGreaterThan(log.indexOf("[benchmark] Benchmark finished"));
    assertThat(lines).noneMatch(l -> l.contains(SECRET));
  }

  @Test
  void aProcessThatExitsBeforeItIsReadyFailsWithItsExitCodeAndLastLogLines() throws IOException {
    Path broken = TinyLlamaGguf.writeUnloadable(models.resolve("broken.gguf"));

    long start = System.nanoTime();
    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(60)).run(launch(llamaCpp, broken).build(), log, engine -> {
      throw new AssertionError("an unloadable model must not reach the benchmark");
    }))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.HEALTH);
          assertThat(e.getMessage()).matches("(?s)llama_cpp's process llama-server \\(pid \\d+\\) exited with code 1 "
              + "before it became ready\\. Last log lines of llama-server \\(pid \\d+\\):\n  .*");
          assertThat(e.containerLogTail()).isNotEmpty().hasSizeLessThanOrEqualTo(EngineRunner.LOG_TAIL_LINES)
              .anyMatch(line -> line.contains("broken.gguf"))
              .anyMatch(line -> line.contains("failed to load model"));
          assertThat(e.containerLogTail()).allSatisfy(line -> assertThat(e.getMessage()).contains(line));
        });
    // the exit ends the wait, not the 60 s timeout
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));

    long pid = log.startedProcesses().get(0);
    assertThat(alive(pid)).isFalse();
    assertThat(log.lines()).contains("[cleanup] llama-server (pid " + pid + ") had already exited with code 1");
    assertThat(log.lines()).noneMatch(l -> l.contains(SECRET));
  }

  @Test
  void healthTimeoutStopsTheProcessAndCarriesItsOutput() throws IOException {
    EngineSpec neverReady = NeverReady.llamaCpp(LlamaServerBinary.writeEngineOverride(dir.resolve("never-ready")));

    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(2)).run(launch(neverReady, model).build(), log, engine -> {
      throw new AssertionError("an engine that never gets ready must not reach the benchmark");
    }))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.HEALTH);
          assertThat(e.getMessage()).startsWith("llama_cpp did not become ready within 2.0 s")
              .contains("/never-ready")
              .contains("last answer: 404")
              .contains("Last log lines of llama-server (pid ");
          assertThat(e.containerLogTail()).isNotEmpty();
        });

    long pid = log.startedProcesses().get(0);
    assertThat(alive(pid)).isFalse();
    int timedOut = log.indexOf("did not become ready");
    assertThat(log.lines().get(timedOut)).endsWith("; the process is stopped");
    assertThat(log.indexOf("[cleanup] Stopped llama-server (pid " + pid + ")")).isGreaterThan(timedOut);
  }

  @Test
  void aProcessThatIgnoresSigtermIsKilledAfterTheGracePeriodWithTheProcessesItStarted() throws IOException {
    // an "engine" that ignores SIGTERM, starts a child that does too, and never listens
    Path script = Files.writeString(dir.resolve("stubborn-engine"), """
        #!/bin/sh
        trap '' TERM
        sleep 300 &
        echo "child $!"
        wait
        """);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    Path override = Files.writeString(dir.resolve("engines.yaml"), """
        engines:
          llama_cpp:
            native:
              binary: "%s"
              args: [--port, "{port}"]
        """.formatted(script));
    EngineSpec stubborn = EngineCatalog.load(Optional.of(override)).find("llama_cpp").orElseThrow();
    NativeLifecycle lifecycle = new NativeLifecycle(
        new HealthPolicy(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofMillis(500));

    assertThatThrownBy(() -> lifecycle.run(EngineLaunch.builder(stubborn, model).port(LoopbackPort.free()).build(), log,
        engine -> {
          throw new AssertionError("an engine that never listens must not reach the benchmark");
        }))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> assertThat(e.stage()).isEqualTo(LifecycleStage.HEALTH));

    long pid = log.startedProcesses().get(0);
    Matcher child = Pattern.compile("^\\[engine] child (\\d+)$").matcher(
        log.lines().stream().filter(l -> l.startsWith("[engine] child ")).findFirst().orElseThrow());
    assertThat(child.matches()).isTrue();
    long childPid = Long.parseLong(child.group(1));
    String name = "stubborn-engine (pid " + pid + ")";
    assertThat(log.lines()).contains(
        "[cleanup] Stopping " + name + " (SIGTERM)",
        "[cleanup] " + name + " did not exit within 500 ms of SIGTERM: killing it (SIGKILL)",
        "[cleanup] Killed 1 process(es) " + name + " left behind",
        "[cleanup] Stopped " + name + ": it exited with code 137 (signal 9)");
    assertThat(alive(pid)).isFalse();
    assertThat(alive(childPid)).as("the engine's child (pid %d)", childPid).isFalse();
  }

  @Test
  void aPortSomethingListensOnIsRefusedBeforeTheEngineStarts() throws IOException {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      EngineLaunch launch = launch(llamaCpp, model).port(taken.getLocalPort()).build();

      assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(5)).run(launch, log, engine -> null))
          .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
            assertThat(e.stage()).isEqualTo(LifecycleStage.CREATE);
            assertThat(e.getMessage()).startsWith("Port " + taken.getLocalPort() + " is already in use on this host");
          });
    }
    assertThat(log.startedProcesses()).isEmpty();
  }

  @Test
  void aMissingBinaryIsAClearErrorAndStartsNothing() throws IOException {
    Path override = Files.writeString(dir.resolve("engines.yaml"), """
        engines:
          llama_cpp:
            native:
              binary: "%s"
          vllm:
            native:
              binary: svc-test-no-such-engine-binary
        """.formatted(dir.resolve("nowhere/llama-server")));
    EngineCatalog catalog = EngineCatalog.load(Optional.of(override));

    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(5)).run(launch(catalog.find("llama_cpp").orElseThrow(), model)
        .build(), log, engine -> null))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.CREATE);
          assertThat(e.getMessage()).isEqualTo("llama_cpp cannot run natively: " + dir.resolve("nowhere/llama-server")
              + " does not exist (engines.llama_cpp.native.binary in engines.yaml (~/.svc/engines.yaml overrides it)).");
        });
    Path weights = Files.createDirectories(models.resolve("qwen"));
    Files.writeString(weights.resolve("model.safetensors"), "weights");
    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(5)).run(EngineLaunch.builder(catalog.find("vllm").orElseThrow(),
        weights).port(LoopbackPort.free()).build(), log, engine -> null))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.CREATE);
          assertThat(e.getMessage()).startsWith("vllm cannot run natively: svc-test-no-such-engine-binary is not on the PATH (")
              .endsWith("). Install it, or give its path as engines.vllm.native.binary in engines.yaml "
                  + "(~/.svc/engines.yaml overrides it).");
        });
    assertThat(log.startedProcesses()).isEmpty();
    assertThat(log.indexOf("[create] Started")).isNegative();
  }

  @Test
  void anEngineWithoutANativeCommandOrAModelItCannotLoadIsRefusedBeforeAnythingStarts() throws IOException {
    EngineSpec ollama = EngineCatalog.defaults().find("ollama").orElseThrow();
    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(5)).run(launch(ollama, model).build(), log, engine -> null))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.COMPATIBILITY);
          assertThat(e.getMessage()).isEqualTo(NativeLifecycle.unavailableReason(ollama).orElseThrow())
              .startsWith("ollama cannot run as a local process: the engine catalog gives it no native command");
        });

    Path safetensors = Files.writeString(models.resolve("model.safetensors"), "weights");
    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(5)).run(launch(llamaCpp, safetensors).build(), log,
        engine -> null))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.COMPATIBILITY);
          assertThat(e.getMessage()).isEqualTo("Model format safetensors is not supported by llama_cpp; llama_cpp supports: gguf");
        });
    assertThat(log.startedProcesses()).isEmpty();
  }
}
