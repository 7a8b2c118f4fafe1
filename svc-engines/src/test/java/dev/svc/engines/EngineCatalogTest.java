package dev.svc.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.CpuArch;
import dev.svc.core.home.SvcHome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EngineCatalogTest {

  @TempDir Path dir;

  @Test
  void shippedDefaultsMatchTheCatalogFacts() {
    EngineCatalog catalog = EngineCatalog.defaults();

    assertThat(catalog.names()).containsExactly("vllm", "tgi", "llama_cpp", "ollama");
    assertThat(catalog.all()).extracting(EngineSpec::name).containsExactly("vllm", "tgi", "llama_cpp", "ollama");

    EngineSpec vllm = catalog.find("vllm").orElseThrow();
    assertThat(vllm.images())
        .isEqualTo(Map.of(CpuArch.AMD64, "vllm/vllm-openai:latest", CpuArch.ARM64, "vllm/vllm-openai:latest"));
    assertThat(vllm.defaultPort()).isEqualTo(8000);
    assertThat(vllm.healthPath()).isEqualTo("/health");
    assertThat(vllm.healthSuccess()).isEqualTo(HealthSuccess.STATUS_200);
    assertThat(vllm.formats()).containsExactly(ModelFormat.SAFETENSORS, ModelFormat.PYTORCH);
    assertThat(vllm.api()).isEqualTo(RequestApi.OPENAI);

    EngineSpec tgi = catalog.find("tgi").orElseThrow();
    assertThat(tgi.image(CpuArch.AMD64)).contains("ghcr.io/huggingface/text-generation-inference:latest");
    assertThat(tgi.image(CpuArch.ARM64)).isEmpty();
    assertThat(tgi.supports(CpuArch.ARM64)).isFalse();
    assertThat(tgi.incompatibleReason(CpuArch.ARM64)).contains("TGI publishes no ARM64 image");
    assertThat(tgi.incompatibleReason(CpuArch.AMD64)).isEmpty();
    assertThat(tgi.defaultPort()).isEqualTo(8000);
    assertThat(tgi.healthPath()).isEqualTo("/health");
    assertThat(tgi.healthSuccess()).isEqualTo(HealthSuccess.STATUS_200);
    assertThat(tgi.formats()).containsExactly(ModelFormat.SAFETENSORS, ModelFormat.PYTORCH);
    assertThat(tgi.api()).isEqualTo(RequestApi.TGI_NATIVE);

    EngineSpec llamaCpp = catalog.find("llama_cpp").orElseThrow();
    assertThat(llamaCpp.image(CpuArch.AMD64)).contains("ghcr.io/ggml-org/llama.cpp:server-cuda");
    assertThat(llamaCpp.image(CpuArch.ARM64)).contains("ghcr.io/ggml-org/llama.cpp:server-cuda");
    assertThat(llamaCpp.defaultPort()).isEqualTo(8081);
    assertThat(llamaCpp.healthPath()).isEqualTo("/health");
    assertThat(llamaCpp.healthSuccess()).isEqualTo(HealthSuccess.STATUS_200);
    assertThat(llamaCpp.formats()).containsExactly(ModelFormat.GGUF);
    assertThat(llamaCpp.api()).isEqualTo(RequestApi.OPENAI);

    EngineSpec ollama = catalog.find("ollama").orElseThrow();
    assertThat(ollama.image(CpuArch.AMD64)).contains("ollama/ollama:latest");
    assertThat(ollama.image(CpuArch.ARM64)).contains("ollama/ollama:latest");
    assertThat(ollama.defaultPort()).isEqualTo(11434);
    assertThat(ollama.healthPath()).isEqualTo("/api/tags");
    assertThat(ollama.healthSuccess()).isEqualTo(HealthSuccess.STATUS_200_WITH_MODEL_LIST);
    assertThat(ollama.formats()).containsExactly(ModelFormat.GGUF);
    assertThat(ollama.api()).isEqualTo(RequestApi.OLLAMA_NATIVE);

    Map<String, List<String>> formats = new LinkedHashMap<>();
    formats.put("vllm", List.of("safetensors", "pytorch"));
    formats.put("tgi", List.of("safetensors", "pytorch"));
    formats.put("llama_cpp", List.of("gguf"));
    formats.put("ollama", List.of("gguf"));
    assertThat(catalog.formatsByEngine()).containsExactlyEntriesOf(formats);
  }

  @Test
  void missingOverrideFileLeavesTheDefaults() {
    EngineCatalog defaults = EngineCatalog.defaults();

    assertThat(EngineCatalog.load(Optional.empty()).all()).isEqualTo(defaults.all());
    assertThat(EngineCatalog.load(Optional.of(dir.resolve("engines.yaml"))).all()).isEqualTo(defaults.all());
    assertThat(EngineCatalog.load(new SvcHome(dir)).all()).isEqualTo(defaults.all());
  }

  @Test
  void engineYamlOverrideIsPickedForItsArchitecture() throws IOException {
    Path override =
        write(
            """
            engines:
              llama_cpp:
                images:
                  amd64: "local/llama:cpu"
            """);

    EngineCatalog catalog = EngineCatalog.load(Optional.of(override));
    EngineSpec llamaCpp = catalog.find("llama_cpp").orElseThrow();
    EngineSpec shipped = EngineCatalog.defaults().find("llama_cpp").orElseThrow();

    assertThat(llamaCpp.image(CpuArch.AMD64)).contains("local/llama:cpu");
    assertThat(llamaCpp.image(CpuArch.ARM64)).contains("ghcr.io/ggml-org/llama.cpp:server-cuda");
    assertThat(llamaCpp.defaultPort()).isEqualTo(shipped.defaultPort());
    assertThat(llamaCpp.formats()).isEqualTo(shipped.formats());
    assertThat(catalog.find("vllm")).isEqualTo(EngineCatalog.defaults().find("vllm"));
  }

  @Test
  void overrideChangesOnlyTheFieldsItWrites() throws IOException {
    Path override =
        write(
            """
            engines:
              tgi:
                images:
                  arm64: my-registry/tgi:arm64
                port: 9000
                health:
                  path: /ready
              vllm:
                unsupported:
                  arm64: our vLLM build is x86 only
                formats: [safetensors]
            """);

    EngineCatalog catalog = EngineCatalog.load(new SvcHome(override.getParent()));
    EngineSpec tgi = catalog.find("tgi").orElseThrow();
    EngineSpec vllm = catalog.find("vllm").orElseThrow();

    assertThat(tgi.image(CpuArch.ARM64)).contains("my-registry/tgi:arm64");
    assertThat(tgi.incompatibleReason(CpuArch.ARM64)).isEmpty();
    assertThat(tgi.defaultPort()).isEqualTo(9000);
    assertThat(tgi.healthPath()).isEqualTo("/ready");
    assertThat(tgi.healthSuccess()).isEqualTo(HealthSuccess.STATUS_200);
    assertThat(vllm.supports(CpuArch.ARM64)).isFalse();
    assertThat(Compatibility.checkPlatform(vllm, CpuArch.ARM64).reason())
        .isEqualTo("vllm is not available on ARM64: our vLLM build is x86 only");
    assertThat(vllm.formats()).containsExactly(ModelFormat.SAFETENSORS);
    assertThat(catalog.names()).containsExactly("vllm", "tgi", "llama_cpp", "ollama");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          broken YAML          | 'engines:\\n  vllm: [unclosed\\n'          | not well-formed YAML
          engines not a map    | 'engines: [vllm, tgi]\\n'                  | engines must be a mapping
          unknown engine       | 'engines:\\n  llamacpp:\\n    port: 1\\n'  | engines.llamacpp is not a known engine
          unknown architecture | 'engines:\\n  vllm:\\n    images:\\n      mips: x\\n' | unknown architecture 'mips'
          port not a number    | 'engines:\\n  vllm:\\n    port: eighty\\n' | engines.vllm.port must be a port number
          port out of range    | 'engines:\\n  vllm:\\n    port: 70000\\n'  | engines.vllm.port must be a port number
          unknown format       | 'engines:\\n  vllm:\\n    formats: [onnx]\\n' | engines.vllm.formats is 'onnx'
          unknown field        | 'engines:\\n  vllm:\\n    image: x\\n'     | engines.vllm has unknown key 'image'
          unknown api          | 'engines:\\n  vllm:\\n    api: grpc\\n'    | engines.vllm.api is 'grpc'
          relative health path | 'engines:\\n  vllm:\\n    health: {path: health}\\n' | must start with '/'
          image and reason     | 'engines:\\n  tgi:\\n    images: {arm64: x}\\n    unsupported: {arm64: y}\\n' | both an image and an unsupported reason
          unknown native key   | 'engines:\\n  vllm:\\n    native: {command: [vllm]}\\n' | engines.vllm.native has unknown key 'command'
          native args no list  | 'engines:\\n  vllm:\\n    native: {args: serve}\\n' | engines.vllm.native.args must be a list
          native without args  | 'engines:\\n  ollama:\\n    native: {binary: ollama}\\n' | engines.ollama.native.args is missing
          native without port  | 'engines:\\n  tgi:\\n    native: {args: [--model-id, "{model}"]}\\n' | engines.tgi.native: The native arguments must pass the port svc chooses: none of them contains {port}
          unknown placeholder  | 'engines:\\n  tgi:\\n    native: {args: [--port, "{port}", "{gpus}"]}\\n' | engines.tgi.native: The native argument '{gpus}' has the unknown placeholder {gpus}
          placeholder binary   | 'engines:\\n  tgi:\\n    native: {binary: "{model}"}\\n' | may not contain a placeholder
          """)
  void malformedOverrideFailsWithFileName(String label, String yaml, String problem) throws IOException {
    Path override = write(yaml.replace("\\n", "\n"));

    assertThatThrownBy(() -> EngineCatalog.load(Optional.of(override)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Engine file " + override.toAbsolutePath() + " is invalid: ")
        .hasMessageContaining(problem)
        .hasMessageEndingWith(".");
  }

  @Test
  void shippedNativeCommandsStartTheEnginesOnTheLoopbackAtSvcsPort() {
    EngineCatalog catalog = EngineCatalog.defaults();

    assertThat(catalog.find("llama_cpp").orElseThrow().nativeCommand()).hasValueSatisfying(command -> {
      assertThat(command.binary()).isEqualTo("llama-server");
      assertThat(command.expand("/m/tiny.gguf", "tiny", 4242)).containsExactly(
          "-m", "/m/tiny.gguf", "--host", "127.0.0.1", "--port", "4242", "-a", "tiny", "--n-gpu-layers", "999");
    });
    assertThat(catalog.find("vllm").orElseThrow().nativeCommand()).hasValueSatisfying(command -> {
      assertThat(command.binary()).isEqualTo("vllm");
      assertThat(command.expand("/m/qwen", "qwen", 8000)).containsExactly(
          "serve", "/m/qwen", "--served-model-name", "qwen", "--host", "127.0.0.1", "--port", "8000");
    });
    assertThat(catalog.find("tgi").orElseThrow().nativeCommand()).hasValueSatisfying(command -> {
      assertThat(command.binary()).isEqualTo("text-generation-launcher");
      assertThat(command.expand("/m/qwen", "qwen", 8000)).containsExactly(
          "--model-id", "/m/qwen", "--hostname", "127.0.0.1", "--port", "8000");
    });
    assertThat(catalog.find("ollama").orElseThrow().nativeCommand()).isEmpty();
  }

  @Test
  void nativeTemplateIsTheCommandAsWrittenQuotingOnlyWordsWithSpacesOrQuotes() {
    NativeCommand shipped = EngineCatalog.defaults().find("llama_cpp").orElseThrow().nativeCommand().orElseThrow();
    NativeCommand spaced = new NativeCommand("/opt/my engines/server",
        List.of("--port={port}", "--alias", "it's {model_name}", "", "--model", "{model}"));

    assertThat(shipped.template())
        .isEqualTo("llama-server -m {model} --host 127.0.0.1 --port {port} -a {model_name} --n-gpu-layers 999");
    assertThat(spaced.template())
        .isEqualTo("'/opt/my engines/server' --port={port} --alias 'it'\\''s {model_name}' '' --model {model}");
  }

  @Test
  void nativeOverridesMergePerFieldAndMayAddACommand() throws IOException {
    Path override =
        write(
            """
            engines:
              llama_cpp:
                native:
                  binary: /opt/llama.cpp/bin/llama-server
              tgi:
                native:
                  args: [--model-id, "{model}", --port, "{port}", --max-total-tokens, 4096]
              ollama:
                native:
                  binary: my-ollama-wrapper
                  args: ["--serve={model_name}@127.0.0.1:{port}", "{model}"]
            """);

    EngineCatalog catalog = EngineCatalog.load(Optional.of(override));
    EngineCatalog shipped = EngineCatalog.defaults();

    NativeCommand llamaCpp = catalog.find("llama_cpp").orElseThrow().nativeCommand().orElseThrow();
    assertThat(llamaCpp.binary()).isEqualTo("/opt/llama.cpp/bin/llama-server");
    assertThat(llamaCpp.args()).isEqualTo(shipped.find("llama_cpp").orElseThrow().nativeCommand().orElseThrow().args());
    NativeCommand tgi = catalog.find("tgi").orElseThrow().nativeCommand().orElseThrow();
    assertThat(tgi.binary()).isEqualTo("text-generation-launcher");
    assertThat(tgi.expand("/m/q", "q", 9)).containsExactly("--model-id", "/m/q", "--port", "9", "--max-total-tokens", "4096");
    NativeCommand ollama = catalog.find("ollama").orElseThrow().nativeCommand().orElseThrow();
    assertThat(ollama.expand("/m/a$1.gguf", "a\\b", 7)).containsExactly("--serve=a\\b@127.0.0.1:7", "/m/a$1.gguf");
    assertThat(catalog.find("vllm")).isEqualTo(shipped.find("vllm"));
  }

  @Test
  void unreadableOverrideFailsWithFileName() {
    assertThatThrownBy(() -> EngineCatalog.load(Optional.of(dir)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(dir.toAbsolutePath().toString())
        .hasMessageContaining("cannot be read");
  }

  @Test
  void emptyOverrideChangesNothing() throws IOException {
    Path override = write("# nothing overridden yet\n");

    assertThat(EngineCatalog.load(Optional.of(override)).all()).isEqualTo(EngineCatalog.defaults().all());
  }

  @Test
  void findIgnoresCaseAndUnknownNamesAreEmpty() {
    EngineCatalog catalog = EngineCatalog.defaults();

    assertThat(catalog.find(" VLLM ")).map(EngineSpec::name).contains("vllm");
    assertThat(catalog.find("sglang")).isEmpty();
    assertThat(catalog.find(null)).isEmpty();
  }

  private Path write(String yaml) throws IOException {
    return Files.writeString(dir.resolve("engines.yaml"), yaml);
  }
}
