package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.fixtures.DockerWithLlamaServer;
import dev.svc.engines.fixtures.RecordingSink;
import dev.svc.engines.fixtures.TinyLlamaGguf;
import dev.svc.engines.fixtures.TinyRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Stage 1: an absent image is pulled from the registry its reference names, with progress lines. */
class ImagePullTest {

  @RegisterExtension
  static final DockerWithLlamaServer DOCKER = new DockerWithLlamaServer();

  @TempDir Path dir;
  private final RecordingSink log = new RecordingSink();

  @Test
  void anAbsentImageIsPulledFromItsRegistryWithProgressLines() throws IOException {
    String tag = "pull-" + System.currentTimeMillis();
    try (TinyRegistry registry = TinyRegistry.serving("svc-test/engine", tag, 3_000_000, dir.resolve("registry-certs"))) {
      String image = registry.image();
      EngineImages images = new EngineImages(DOCKER.client());
      assertThat(images.isPresent(image)).isFalse();
      try {
        boolean pulled = images.ensure(image, log);

        assertThat(pulled).isTrue();
        assertThat(images.isPresent(image)).isTrue();
        assertThat(log.lines().get(0))
            .isEqualTo("[image] Image " + image + " is not present locally; pulling it from " + registry.host());
        assertThat(log.lines()).anyMatch(l -> l.matches("\\[image] [0-9a-f]{12}: Pull complete"));
        assertThat(log.lines()).anyMatch(l -> l.matches("\\[image] Downloading: [0-9.]+ MB of [0-9.]+ MB \\(\\d+%\\) across 1 layer\\(s\\)"));
        assertThat(log.lines()).anyMatch(l -> l.startsWith("[image] Digest: sha256:"));
        assertThat(log.lines().get(log.lines().size() - 1)).startsWith("[image] Pulled " + image + " (id ");
        assertThat(registry.requests()).anyMatch(r -> r.endsWith("/manifests/" + tag))
            .anyMatch(r -> r.startsWith("GET /v2/svc-test/engine/blobs/sha256:"));
      } finally {
        DOCKER.client().removeImageCmd(image).withForce(true).exec();
      }
    }
  }

  @Test
  void anUnreachableRegistryFailsTheImageStageBeforeAnyContainer() throws IOException {
    Path override = Files.writeString(Files.createDirectories(dir.resolve("home")).resolve("engines.yaml"), """
        engines:
          llama_cpp:
            images:
              amd64: "127.0.0.1:9/svc-test/llama:absent"
              arm64: "127.0.0.1:9/svc-test/llama:absent"
        """);
    EngineSpec llamaCpp = EngineCatalog.load(Optional.of(override)).find("llama_cpp").orElseThrow();
    Path model = TinyLlamaGguf.write(Files.createDirectories(dir.resolve("models")).resolve("tiny.gguf"));
    EngineLifecycle lifecycle = new EngineLifecycle(DOCKER.client(), GpuProbe.system(), HealthPolicy.DEFAULT.withTimeout(Duration.ofSeconds(5)));

    assertThatThrownBy(() -> lifecycle.run(EngineLaunch.builder(llamaCpp, model).build(), log, engine -> null))
        .isInstanceOfSatisfying(EngineLifecycleException.class, e -> {
          assertThat(e.stage()).isEqualTo(LifecycleStage.IMAGE);
          assertThat(e.getMessage()).startsWith("Pulling 127.0.0.1:9/svc-test/llama:absent from 127.0.0.1:9 failed: ")
              .contains("connection refused")
              .doesNotContain("Status 500");
        });
    assertThat(log.lines()).noneMatch(l -> l.startsWith("[create]"));
  }
}
