package dev.svc.engines;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class ModelFormatsTest {

  @ParameterizedTest
  @CsvSource({
    "/models/llama-3-8b.Q4_K_M.gguf, GGUF",
    "model.GGUF, GGUF",
    "/models/qwen/model-00001-of-00004.safetensors, SAFETENSORS",
    "/models/gpt2/pytorch_model.bin, PYTORCH",
    "weights.bin, PYTORCH",
    "checkpoint.pt, PYTORCH",
    "checkpoint.pth, PYTORCH",
  })
  void detectsFormatsFromPathText(String modelPath, ModelFormat expected) {
    assertThat(ModelFormats.detect(modelPath)).contains(expected);
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"meta-llama/Llama-3-8B", "/models/llama", "/models/llama/", "llama3:8b", "model.onnx"})
  void pathsWithoutATellingSuffixHaveNoFormat(String modelPath) {
    assertThat(ModelFormats.detect(modelPath)).isEmpty();
  }

  @Test
  void detectsFormatsFromPathsAndDirectories(@TempDir Path dir) throws IOException {
    Path ggufFile = Files.writeString(dir.resolve("tiny.Q8_0.gguf"), "GGUF");
    Path safetensorsDir = directoryWith(dir, "qwen", "config.json", "model-00001-of-00002.safetensors", "tokenizer.json");
    Path pytorchDir = directoryWith(dir, "gpt2", "config.json", "pytorch_model.bin");
    Path ptDir = directoryWith(dir, "custom", "checkpoint.pth");
    Path ggufDir = directoryWith(dir, "llama", "README.md", "llama-3-8b.Q4_K_M.gguf");
    Path mixedDir = directoryWith(dir, "mixed", "model.safetensors", "pytorch_model.bin", "model.gguf");
    Path emptyDir = directoryWith(dir, "empty");
    Path missingWithSuffix = dir.resolve("not-downloaded-yet.safetensors");

    assertThat(ModelFormats.detect(ggufFile)).contains(ModelFormat.GGUF);
    assertThat(ModelFormats.detect(safetensorsDir)).contains(ModelFormat.SAFETENSORS);
    assertThat(ModelFormats.detect(pytorchDir)).contains(ModelFormat.PYTORCH);
    assertThat(ModelFormats.detect(ptDir)).contains(ModelFormat.PYTORCH);
    assertThat(ModelFormats.detect(ggufDir)).contains(ModelFormat.GGUF);
    assertThat(ModelFormats.detect(mixedDir)).contains(ModelFormat.SAFETENSORS);
    assertThat(ModelFormats.detect(emptyDir)).isEmpty();
    assertThat(ModelFormats.detect(missingWithSuffix)).contains(ModelFormat.SAFETENSORS);
    assertThat(ModelFormats.detect(Path.of("meta-llama/Llama-3-8B"))).isEmpty();
  }

  @Test
  void wireNamesRoundTrip() {
    for (ModelFormat format : ModelFormat.values()) {
      assertThat(ModelFormat.parse(format.wireName())).contains(format);
    }
    assertThat(ModelFormat.parse(" GGUF ")).contains(ModelFormat.GGUF);
    assertThat(ModelFormat.parse("onnx")).isEmpty();
  }

  private static Path directoryWith(Path parent, String name, String... files) throws IOException {
    Path directory = Files.createDirectory(parent.resolve(name));
    for (String file : files) {
      Files.writeString(directory.resolve(file), "");
    }
    return directory;
  }
}
