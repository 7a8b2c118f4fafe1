package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.command.InspectContainerResponse;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.codec.GenerationRequest;
import dev.svc.engines.fixtures.DockerWithLlamaServer;
import dev.svc.engines.fixtures.CodecStream;
import dev.svc.engines.fixtures.EngineContainers;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.NeverReady;
import dev.svc.engines.fixtures.RecordingSink;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 5's lifecycle acceptance against the real dockerd and llama.cpp's llama-server in the
 * local image, serving a tiny generated GGUF model.
 */
class LlamaCppLifecycleTest {

  private static final String SECRET = "secret";
  @RegisterExtension
  static final DockerWithLlamaServer DOCKER = new DockerWithLlamaServer();

  @TempDir Path dir;
  private Path models;
  private Path model;
  private EngineSpec llamaCpp;
  private final RecordingSink log = new RecordingSink();

  @BeforeEach
  void model() throws IOException {
    models = Files.createDirectories(dir.resolve("models"));
    model = TinyLlamaGguf.write(models.resolve("tiny.gguf"));
    llamaCpp = LlamaServerImage.catalog(dir.resolve("home")).find("llama_cpp").orElseThrow();
  }

  @AfterEach
  void removeLeftovers() {
    EngineContainers.removeQuietly(DOCKER.client(), log.createdContainers());
  }

  private EngineLaunch.Builder launch(EngineSpec engine, Path modelPath) {
    return EngineLaunch.builder(engine, modelPath)
        .port(LoopbackPort.free())
        .env("HF_TOKEN", SECRET)
        .extraArgs(LlamaServerImage.CPU_ARGS);
  }

  private static EngineLifecycle lifecycle(Duration timeout) {
    return new EngineLifecycle(DOCKER.client(), GpuProbe.system(),
        new HealthPolicy(Duration.ofMillis(20), Duration.ofMillis(400), timeout));
  }

  private record Streams(InspectContainerResponse container, CodecStream.Result completion, CodecStream.Result chat) {}

  @Test
  void llamaCppGoesThroughEveryStageAndLeavesNoContainer() throws IOException {
    // a long context keeps the model loading (503) for ~0.1 s; checks every 5 ms see it
    Path longContext = TinyLlamaGguf.writeLongContext(models.resolve("tiny.gguf"));
    EngineLaunch launch = launch(llamaCpp, longContext).extraArgs(LlamaServerImage.SLOW_LOAD_ARGS).build();
    EngineLifecycle lifecycle = new EngineLifecycle(DOCKER.client(), GpuProbe.system(),
        new HealthPolicy(Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofSeconds(60)));

    Streams streams = lifecycle.run(launch, log, engine -> new Streams(
        DOCKER.client().inspectContainerCmd(engine.containerId()).exec(),
        CodecStream.send(engine, GenerationRequest.completion(engine.modelName(), "Once upon a time", 12)),
        CodecStream.send(engine, GenerationRequest.chat(engine.modelName(), "Say something.", 7))));

    // created with host network, the kitt- name, the bind mount, from the overridden local image
    InspectContainerResponse container = streams.container();
    String name = container.getName().substring(1);
    assertThat(name).matches("kitt-\\d+");
    assertThat(container.getHostConfig().getNetworkMode()).isEqualTo("host");
    assertThat(container.getMounts()).anySatisfy(mount -> {
      assertThat(mount.getSource()).isEqualTo(models.toString());
      assertThat(mount.getDestination().getPath()).isEqualTo("/models");
    });
    assertThat(container.getConfig().getImage()).isEqualTo(LlamaServerImage.TAG);
    assertThat(container.getArgs()).containsSequence("-m", "/models/tiny.gguf")
        .containsSequence("--port", Integer.toString(launch.port()));
    assertThat(container.getConfig().getLabels()).containsEntry(ContainerPlan.ENGINE_LABEL, "llama_cpp");
    // the environment reaches the container, yet no log line shows it
    assertThat(container.getConfig().getEnv()).contains("HF_TOKEN=" + SECRET);

    // a streaming completion and a chat turn return tokens, exactly max_tokens of them
    CodecStream.Result completion = streams.completion();
    assertThat(completion.status()).isEqualTo(200);
    assertThat(completion.done()).isTrue();
    assertThat(completion.error()).isNull();
    assertThat(completion.usage().completionTokens()).isEqualTo(12);
    assertThat(completion.usage().promptTokens()).isPositive();
    assertThat(completion.pieces()).hasSizeGreaterThan(1);
    assertThat(completion.text()).isNotBlank().matches("[\\x20-\\x7E]+");
    CodecStream.Result chat = streams.chat();
    assertThat(chat.status()).isEqualTo(200);
    assertThat(chat.done()).isTrue();
    assertThat(chat.usage().completionTokens()).isEqualTo(7);
    assertThat(chat.text()).isNotBlank().matches("[\\x20-\\x7E]+");

    // stop and remove left nothing
    assertThat(EngineContainers.named(DOCKER.client(), name)).isEmpty();

    // the stages, in order
    List<String> lines = log.lines();
    List<Integer> stageStarts = new ArrayList<>();
    for (LifecycleStage stage : LifecycleStage.values()) {
      stageStarts.add(log.indexOf(stage.tag()));
    }
    assertThat(stageStarts).doesNotContain(-1).isSorted();
    assertThat(lines).anyMatch(l -> l.startsWith("[image] Image " + LlamaServerImage.TAG + " is present locally"));
    assertThat(lines).anyMatch(l -> l.startsWith("[create] docker run -d --name " + name + " --network host")
        && l.contains("-v " + models + ":/models") && l.contains("-e HF_TOKEN=***"));
    // health: 503 while loading, retried, then 200
    int loading = log.indexOf("503 (still loading)");
    int ready = log.indexOf("answered 200");
    assertThat(loading).as("a 503 while the model loads, in %s", lines).isNotNegative();
    assertThat(ready).isGreaterThan(loading);
    assertThat(lines).contains("[cleanup] Stopping " + name, "[cleanup] Removed " + name);
    assertThat(log.indexOf("[cleanup] Removed")).isGreaterThan(log.indexOf("[benchmark] Benchmark finished"));
    assertThat(lines).noneMatch(l -> l.contains(SECRET));
  }

  @Test
  void withoutNvidiaGpusNoDeviceRequestIsSentAndTheLogSaysWhy() {
    GpuAvailability here = GpuProbe.system().detect();
    assertThat(here.present()).as("this test needs a host without NVIDIA GPUs: %s", here.detail()).isFalse();

    Boolean hadDeviceRequest = lifecycle(Duration.ofSeconds(60)).run(launch(llamaCpp, model).build(), log, engine -> {
      var requests = DOCKER.client().inspectContainerCmd(engine.containerId()).exec().getHostConfig().getDeviceRequests();
      return engine.gpusRequested() || (requests != null && !requests.isEmpty());
    });

    assertThat(hadDeviceRequest).isFalse();
    assertThat(log.lines()).contains("[create] No GPUs requested: " + here.detail());
    assertThat(here.detail()).startsWith("no NVIDIA GPU");
    assertThat(log.lines()).filteredOn(l -> l.startsWith("[create] docker run")).singleElement()
        .satisfies(l -> assertThat(l).doesNotContain("--gpus"));
  }

  @Test
  void unloadableModelEndsInAnErrorWithTheContainersLastLogLines() throws IOException {
    Path broken = TinyLlamaGguf.writeUnloadable(models.resolve("broken.gguf"));
    EngineLaunch launch = launch(llamaCpp, broken).build();

    // the container's exit ends the wait; the timeout only has to be longer than its start on a busy machine
    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(60)).run(launch, log, engine -> {
      throw new AssertionError("an unloadable model must not reach the benchmark");
    }))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.HEALTH);
          assertThat(e.getMessage()).startsWith("llama_cpp's container kitt-")
              .contains("exited with code")
              .contains("Last log lines of kitt-");
          assertThat(e.containerLogTail()).isNotEmpty()
              .anyMatch(line -> line.contains("broken.gguf"))
              .anyMatch(line -> line.toLowerCase().contains("failed"));
          assertThat(e.containerLogTail()).allSatisfy(line -> assertThat(e.getMessage()).contains(line));
          assertThat(e.getMessage()).doesNotContain(SECRET);
        });

    List<String> created = log.createdContainers();
    assertThat(created).hasSize(1);
    assertThat(EngineContainers.named(DOCKER.client(), created.get(0))).isEmpty();
    assertThat(log.lines()).contains("[cleanup] Removed " + created.get(0));
    assertThat(log.lines()).noneMatch(l -> l.contains(SECRET));
  }

  @Test
  void healthTimeoutStopsAndRemovesTheContainerAndCarriesItsLog() throws IOException {
    EngineSpec neverReady = NeverReady.llamaCpp(LlamaServerImage.writeEngineOverride(dir.resolve("never-ready")));
    EngineLaunch launch = launch(neverReady, model).build();

    long start = System.nanoTime();
    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(2)).run(launch, log, engine -> {
      throw new AssertionError("an engine that never gets ready must not reach the benchmark");
    }))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.HEALTH);
          assertThat(e.getMessage()).startsWith("llama_cpp did not become ready within 2.0 s")
              .contains("/never-ready")
              .contains("last answer: 404")
              .contains("Last log lines of kitt-");
          assertThat(e.containerLogTail()).isNotEmpty();
        });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));

    String name = log.createdContainers().get(0);
    assertThat(EngineContainers.named(DOCKER.client(), name)).isEmpty();
    int timedOut = log.indexOf("did not become ready");
    assertThat(timedOut).isNotNegative();
    assertThat(log.indexOf("[cleanup] Removed " + name)).isGreaterThan(timedOut);
  }

  @Test
  void aSuiteRunsItsEnginesOneAfterAnother() {
    int port = LoopbackPort.free();
    // the same port for both: overlapping engines could not both bind it
    List<EngineLaunch> suite = List.of(
        launch(llamaCpp, model).port(port).build(),
        launch(llamaCpp, model).port(port).build());

    List<EngineOutcome<String>> outcomes = lifecycle(Duration.ofSeconds(60)).runSuite(suite, log,
        engine -> CodecStream.send(engine, GenerationRequest.completion(engine.modelName(), "Hi", 3)).text());

    assertThat(outcomes).hasSize(2).allSatisfy(o -> {
      assertThat(o.succeeded()).as("%s", o.error()).isTrue();
      assertThat(o.result()).isNotEmpty();
    });
    List<String> created = log.createdContainers();
    assertThat(created).hasSize(2).doesNotHaveDuplicates();
    assertThat(log.indexOf("[cleanup] Removed " + created.get(0)))
        .isLessThan(log.indexOf("Created container " + created.get(1)));
    assertThat(log.indexOf("[suite] Engine 2 of 2: llama_cpp")).isGreaterThan(log.indexOf("[cleanup] Removed " + created.get(0)));
    created.forEach(name -> assertThat(EngineContainers.named(DOCKER.client(), name)).isEmpty());
  }

  @Test
  void aFailingBenchmarkStillStopsAndRemovesTheContainer() {
    assertThatThrownBy(() -> lifecycle(Duration.ofSeconds(60)).run(launch(llamaCpp, model).build(), log, engine -> {
      throw new IllegalStateException("the load generator broke");
    }))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.BENCHMARK);
          assertThat(e.getMessage()).contains("the load generator broke");
          assertThat(e.getCause()).isInstanceOf(IllegalStateException.class);
        });

    String name = log.createdContainers().get(0);
    assertThat(log.lines()).contains("[cleanup] Removed " + name);
    assertThat(EngineContainers.named(DOCKER.client(), name)).isEmpty();
  }
}
