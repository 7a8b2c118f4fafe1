package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.CpuArch;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.codec.GenerationRequest;
import dev.svc.engines.fixtures.DockerWithLlamaServer;
import dev.svc.engines.fixtures.CodecStream;
import dev.svc.engines.fixtures.EngineContainers;
import dev.svc.engines.fixtures.LlamaServerImage;
import dev.svc.engines.fixtures.RecordingSink;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compatibility rules as the lifecycle applies them before anything is created (the agent's
 * re-check), and {@code force} carrying a refused pair through to a real running engine.
 */
class CompatibilityBeforeLaunchTest {

  @RegisterExtension
  static final DockerWithLlamaServer DOCKER = new DockerWithLlamaServer();

  @TempDir Path dir;
  private EngineCatalog catalog;
  private Path models;
  private final RecordingSink log = new RecordingSink();

  @BeforeEach
  void catalog() throws IOException {
    catalog = LlamaServerImage.catalog(dir.resolve("home"));
    models = Files.createDirectories(dir.resolve("models"));
  }

  @AfterEach
  void removeLeftovers() {
    EngineContainers.removeQuietly(DOCKER.client(), log.createdContainers());
  }

  private EngineLifecycle lifecycle() {
    return new EngineLifecycle(DOCKER.client(), GpuProbe.system(),
        new HealthPolicy(Duration.ofMillis(50), Duration.ofMillis(400), Duration.ofSeconds(60)));
  }

  @Test
  void ggufModelOnVllmIsRefusedNamingTheSupportedFormatsBeforeAnyContainer() throws IOException {
    Path gguf = TinyLlamaGguf.write(models.resolve("tiny.gguf"));
    EngineLaunch launch = EngineLaunch.builder(catalog.find("vllm").orElseThrow(), gguf).arch(CpuArch.AMD64).build();

    assertThatThrownBy(() -> lifecycle().run(launch, log, engine -> null))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.COMPATIBILITY);
          assertThat(e.getMessage())
              .isEqualTo("Model format gguf is not supported by vllm; vllm supports: safetensors, pytorch");
        });
    assertThat(log.lines()).noneMatch(l -> l.startsWith("[image]") || l.startsWith("[create]"));
  }

  @Test
  void tgiOnArm64IsRefusedWithItsReason() throws IOException {
    Path weights = Files.writeString(models.resolve("model.safetensors"), "");
    EngineLaunch launch = EngineLaunch.builder(catalog.find("tgi").orElseThrow(), weights).arch(CpuArch.ARM64).build();

    assertThatThrownBy(() -> lifecycle().run(launch, log, engine -> null))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.COMPATIBILITY);
          assertThat(e.getMessage()).isEqualTo("tgi is not available on ARM64: TGI publishes no ARM64 image");
        });
    assertThat(log.lines()).noneMatch(l -> l.startsWith("[create]"));
  }

  @Test
  void forceBypassesTheFormatRuleAndTheEngineRuns() throws IOException {
    // a GGUF file under a PyTorch name: the rules refuse it for llama_cpp, llama-server loads it anyway
    Path disguised = Files.move(TinyLlamaGguf.write(models.resolve("tiny.gguf")), models.resolve("tiny.bin"));
    EngineLaunch.Builder launch = EngineLaunch.builder(catalog.find("llama_cpp").orElseThrow(), disguised)
        .port(LoopbackPort.free())
        .extraArgs(LlamaServerImage.CPU_ARGS);

    assertThatThrownBy(() -> lifecycle().run(launch.build(), log, engine -> null))
        .isInstanceOfSatisfying(EngineLifecycleException.class,
            e -> assertThat(e.getMessage()).isEqualTo("Model format pytorch is not supported by llama_cpp; llama_cpp supports: gguf"));

    CodecStream.Result result = lifecycle().run(launch.force(true).build(), log,
        engine -> CodecStream.send(engine, GenerationRequest.completion(engine.modelName(), "Hi", 4)));

    assertThat(result.usage().completionTokens()).isEqualTo(4);
    assertThat(log.lines()).contains(
        "[compatibility] Forced past the compatibility rules: Model format pytorch is not supported by llama_cpp; "
            + "llama_cpp supports: gguf");
    assertThat(EngineContainers.named(DOCKER.client(), log.createdContainers().get(0))).isEmpty();
  }

  @Test
  void theEnginesYamlOverrideIsPickedForThisArchitecture() throws IOException {
    Path gguf = TinyLlamaGguf.write(models.resolve("tiny.gguf"));
    CpuArch here = CpuArch.ofThisMachine();
    EngineLaunch launch = EngineLaunch.builder(catalog.find("llama_cpp").orElseThrow(), gguf)
        .arch(here)
        .port(LoopbackPort.free())
        .extraArgs(LlamaServerImage.CPU_ARGS)
        .build();

    String image = lifecycle().run(launch, log,
        engine -> DOCKER.client().inspectContainerCmd(engine.containerId()).exec().getConfig().getImage());

    assertThat(image).isEqualTo(LlamaServerImage.TAG);
    assertThat(EngineCatalog.defaults().find("llama_cpp").orElseThrow().image(here)).get().isNotEqualTo(image);
  }
}
