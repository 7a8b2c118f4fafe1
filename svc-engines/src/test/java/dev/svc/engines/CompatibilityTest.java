package dev.svc.engines;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.core.CpuArch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class CompatibilityTest {

  private final EngineCatalog catalog = EngineCatalog.defaults();

  private EngineSpec engine(String name) {
    return catalog.find(name).orElseThrow();
  }

  @Test
  void tgiOnArm64IsRefusedWithReason() {
    Verdict verdict = Compatibility.checkPlatform(engine("tgi"), CpuArch.ARM64);

    assertThat(verdict.compatible()).isFalse();
    assertThat(verdict.kind()).isEqualTo(Verdict.Kind.PLATFORM);
    assertThat(verdict.forced()).isFalse();
    assertThat(verdict.reason()).isEqualTo("tgi is not available on ARM64: TGI publishes no ARM64 image");
    assertThat(Compatibility.check(engine("tgi"), CpuArch.ARM64, "/models/llama/model.safetensors", false))
        .isEqualTo(verdict);
  }

  @Test
  void tgiOnAmd64IsAllowed() {
    assertThat(Compatibility.checkPlatform(engine("tgi"), CpuArch.AMD64)).isEqualTo(Verdict.ok());
  }

  @Test
  void ggufModelOnVllmIsRefusedNamingSupportedFormats() {
    Verdict verdict =
        Compatibility.check(engine("vllm"), CpuArch.AMD64, "/models/llama-3-8b.Q4_K_M.gguf", false);

    assertThat(verdict.compatible()).isFalse();
    assertThat(verdict.kind()).isEqualTo(Verdict.Kind.FORMAT);
    assertThat(verdict.reason())
        .isEqualTo("Model format gguf is not supported by vllm; vllm supports: safetensors, pytorch");
    assertThat(Compatibility.checkFormat(engine("vllm"), "/models/llama-3-8b.Q4_K_M.gguf"))
        .isEqualTo(verdict);
  }

  @Test
  void safetensorsModelOnOllamaIsRefusedNamingGguf() {
    Verdict verdict = Compatibility.checkFormat(engine("ollama"), "model-00001-of-00002.safetensors");

    assertThat(verdict.kind()).isEqualTo(Verdict.Kind.FORMAT);
    assertThat(verdict.reason()).endsWith("ollama supports: gguf");
  }

  @Test
  void aKnownFormatGetsTheSameVerdictAsAPathOfThatFormat() {
    assertThat(Compatibility.checkFormat(engine("vllm"), ModelFormat.GGUF))
        .isEqualTo(Compatibility.checkFormat(engine("vllm"), "/models/tiny.gguf"));
    assertThat(Compatibility.checkFormat(engine("vllm"), ModelFormat.GGUF).reason())
        .isEqualTo("Model format gguf is not supported by vllm; vllm supports: safetensors, pytorch");
    assertThat(Compatibility.checkFormat(engine("llama_cpp"), ModelFormat.GGUF)).isEqualTo(Verdict.ok());
  }

  @Test
  void platformIsCheckedBeforeFormat() {
    Verdict verdict = Compatibility.check(engine("tgi"), CpuArch.ARM64, "/models/x.gguf", false);

    assertThat(verdict.kind()).isEqualTo(Verdict.Kind.PLATFORM);
  }

  @Test
  void forceBypassesPlatformAndFormat() {
    Verdict platform = Compatibility.check(engine("tgi"), CpuArch.ARM64, "/models/m.safetensors", true);
    Verdict format = Compatibility.check(engine("vllm"), CpuArch.AMD64, "/models/m.gguf", true);
    Verdict both = Compatibility.check(engine("tgi"), CpuArch.ARM64, "/models/m.gguf", true);
    Verdict nothingToBypass = Compatibility.check(engine("vllm"), CpuArch.ARM64, "/models/m.safetensors", true);

    assertThat(platform.compatible()).isTrue();
    assertThat(platform.forced()).isTrue();
    assertThat(platform.kind()).isEqualTo(Verdict.Kind.PLATFORM);
    assertThat(platform.reason()).contains("TGI publishes no ARM64 image");

    assertThat(format.compatible()).isTrue();
    assertThat(format.forced()).isTrue();
    assertThat(format.kind()).isEqualTo(Verdict.Kind.FORMAT);
    assertThat(format.reason()).startsWith("Model format gguf");

    assertThat(both.compatible()).isTrue();
    assertThat(both.forced()).isTrue();
    assertThat(both.kind()).isEqualTo(Verdict.Kind.PLATFORM);

    assertThat(nothingToBypass).isEqualTo(Verdict.ok());
    assertThat(nothingToBypass.forced()).isFalse();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"meta-llama/Llama-3-8B", "/models/llama-3-8b", "Qwen/Qwen2.5-7B-Instruct", "llama3:8b"})
  void unknownFormatIsAllowed(String modelPath) {
    for (EngineSpec engine : catalog.all()) {
      Verdict verdict = Compatibility.check(engine, CpuArch.AMD64, modelPath, false);

      assertThat(verdict).as(engine.name()).isEqualTo(Verdict.ok());
      assertThat(verdict.reason()).isNull();
      assertThat(verdict.kind()).isEqualTo(Verdict.Kind.NONE);
    }
  }

  @Test
  void unreportedArchitecturePassesThePlatformCheck() {
    assertThat(Compatibility.checkPlatform(engine("tgi"), null)).isEqualTo(Verdict.ok());
    assertThat(Compatibility.check(engine("tgi"), null, "/models/m.safetensors", false).compatible())
        .isTrue();
  }

  @ParameterizedTest
  @CsvSource({
    "vllm, amd64, /m/model.safetensors",
    "vllm, arm64, /m/pytorch_model.bin",
    "tgi, amd64, /m/model.safetensors",
    "llama_cpp, arm64, /m/model.gguf",
    "ollama, amd64, /m/model.gguf",
    "ollama, arm64, /m/model.GGUF",
  })
  void supportedPairsAreCompatible(String engine, String arch, String modelPath) {
    Verdict verdict =
        Compatibility.check(engine(engine), CpuArch.parse(arch).orElseThrow(), modelPath, false);

    assertThat(verdict).isEqualTo(Verdict.ok());
  }

  @Test
  void onDiskCheckLooksInsideTheModelDirectory(@TempDir Path dir) throws IOException {
    Path model = Files.createDirectory(dir.resolve("llama"));
    Files.writeString(model.resolve("llama-3-8b.Q4_K_M.gguf"), "");

    assertThat(Compatibility.checkFormat(engine("vllm"), model.toString())).isEqualTo(Verdict.ok());
    assertThat(Compatibility.checkFormatOnDisk(engine("vllm"), model).kind())
        .isEqualTo(Verdict.Kind.FORMAT);
    assertThat(Compatibility.checkOnDisk(engine("llama_cpp"), CpuArch.ARM64, model, false))
        .isEqualTo(Verdict.ok());
  }
}
