package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.svc.engines.EngineSpec;
import dev.svc.engines.codec.GenerationRequest;
import dev.svc.engines.fixtures.CodecStream;
import dev.svc.engines.fixtures.FaultCounts;
import dev.svc.engines.fixtures.LlamaServerBinary;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.RecordingSink;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, fault 3 on {@code svc run --native}'s path: the real llama-server binary, killed with
 * SIGKILL while the benchmark session runs. The session here would wait forever: only the engine
 * run's own watch can end it, within seconds, with the engine's last lines.
 */
class NativeEngineCrashTest {

  /** From the kill to the run's failure: the watch looks every second; far below the 60 s health timeout here. */
  static final Duration BOUND = Duration.ofSeconds(15);

  @TempDir Path dir;
  private final RecordingSink log = new RecordingSink();

  @AfterEach
  void killLeftovers() {
    log.startedProcesses().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
  }

  @Test
  @Timeout(60) // a run that waited on the session would never end by itself
  void aNativeEngineKilledMidSessionEndsTheRunWithItsLastLinesInsteadOfHanging() throws Exception {
    LlamaServerBinary.require();
    Path model = TinyLlamaGguf.write(Files.createDirectories(dir.resolve("models")).resolve("crash.gguf"));
    EngineSpec llamaCpp = LlamaServerBinary.catalog(dir.resolve("home")).find("llama_cpp").orElseThrow();
    EngineLaunch launch = EngineLaunch.builder(llamaCpp, model).port(LoopbackPort.free())
        .extraArgs(LlamaServerImage.CPU_ARGS).build();
    NativeLifecycle lifecycle = new NativeLifecycle(new HealthPolicy(Duration.ofMillis(20), Duration.ofMillis(400),
        Duration.ofSeconds(60)), EngineRunner.STOP_GRACE);
    long[] pid = {0};
    long[] killed = {0};
    CodecStream.Result[] served = new CodecStream.Result[1];

    Throwable thrown = catchThrowable(() -> lifecycle.run(launch, log, engine -> {
      pid[0] = ((EngineIdentity.LocalProcess) engine.identity()).pid();
      served[0] = CodecStream.send(engine, GenerationRequest.completion(engine.modelName(), "Once upon a time", 8));
      killed[0] = System.nanoTime();
      ProcessHandle.of(pid[0]).orElseThrow().destroyForcibly();
      new CountDownLatch(1).await(); // a session that never returns by itself
      return null;
    }));
    Duration toFailure = Duration.ofNanos(System.nanoTime() - killed[0]);

    List<String> tail = thrown instanceof EngineLifecycleException e ? e.containerLogTail() : List.of();
    List<String> streamed = log.lines().stream().filter(l -> l.startsWith(NativeLifecycle.OUTPUT_TAG + " "))
        .map(l -> l.substring(NativeLifecycle.OUTPUT_TAG.length() + 1)).toList();
    List<String> lastStreamed = streamed.subList(Math.max(0, streamed.size() - tail.size()), streamed.size());
    FaultCounts.of("NativeEngineCrashTest: llama-server process killed mid-session (svc run --native)")
        .put("engine_lines_streamed", streamed.size()).put("tail_lines_in_error", tail.size())
        .put("tail_lines_matching", tail.equals(lastStreamed) ? tail.size() : 0)
        .put("ms_to_failure", toFailure.toMillis()).report();

    assertThat(served[0].status()).isEqualTo(200);
    assertThat(thrown).isInstanceOf(EngineLifecycleException.class);
    EngineLifecycleException failure = (EngineLifecycleException) thrown;
    assertThat(failure.stage()).isEqualTo(LifecycleStage.BENCHMARK);
    assertThat(failure.getMessage()).startsWith("llama_cpp's process llama-server (pid " + pid[0]
        + ") exited with code 137 (signal 9) during the benchmark. Last log lines of llama-server (pid " + pid[0] + "):");
    assertThat(tail).isNotEmpty().hasSizeLessThanOrEqualTo(EngineRunner.LOG_TAIL_LINES).isEqualTo(lastStreamed);
    assertThat(toFailure).isLessThan(BOUND);
    assertThat(Thread.currentThread().isInterrupted()).as("the watch's interrupt is consumed").isFalse();
    assertThat(ProcessHandle.of(pid[0]).map(ProcessHandle::isAlive).orElse(false)).isFalse();
  }
}
