package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ImageRefTest {

  @ParameterizedTest
  @CsvSource({
    "vllm/vllm-openai:latest, vllm/vllm-openai, latest, docker.io",
    "ollama/ollama, ollama/ollama, latest, docker.io",
    "ghcr.io/ggml-org/llama.cpp:server-cuda, ghcr.io/ggml-org/llama.cpp, server-cuda, ghcr.io",
    "127.0.0.1:5000/svc/llama:cpu, 127.0.0.1:5000/svc/llama, cpu, 127.0.0.1:5000",
    "localhost/svc:1, localhost/svc, 1, localhost",
    "registry.local:5000/team/img, registry.local:5000/team/img, latest, registry.local:5000",
    "busybox@sha256:abcd, busybox, sha256:abcd, docker.io",
  })
  void splitsRepositoryTagAndRegistry(String image, String repository, String tag, String registry) {
    ImageRef ref = ImageRef.parse(image);

    assertThat(ref).isEqualTo(new ImageRef(repository, tag, registry));
  }
}
