package dev.svc.engines;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Tells a model's format from its path: from the path text alone, or from what lies on disk.
 * Hugging Face ids and other paths without a telling suffix have no detectable format.
 */
public final class ModelFormats {

  private ModelFormats() {}

  /**
   * The format the path text names by its suffix: {@code .gguf}, {@code .safetensors}, or
   * {@code .bin}/{@code .pt}/{@code .pth} (PyTorch, {@code pytorch_model.bin} included);
   * empty for anything else, such as a Hugging Face id or a directory path.
   */
  public static Optional<ModelFormat> detect(String modelPath) {
    if (modelPath == null || modelPath.isBlank()) {
      return Optional.empty();
    }
    String text = modelPath.trim().toLowerCase(Locale.ROOT);
    if (text.endsWith(".gguf")) {
      return Optional.of(ModelFormat.GGUF);
    }
    if (text.endsWith(".safetensors")) {
      return Optional.of(ModelFormat.SAFETENSORS);
    }
    if (text.endsWith(".bin") || text.endsWith(".pt") || text.endsWith(".pth")) {
      return Optional.of(ModelFormat.PYTORCH);
    }
    return Optional.empty();
  }

  /**
   * The format of what lies at the path: a file by its suffix; a directory by the weights it
   * holds, preferring safetensors, then PyTorch ({@code *.bin}, {@code *.pt}, {@code *.pth}),
   * then gguf. Falls back to the text rule when the path does not exist or cannot be listed.
   */
  public static Optional<ModelFormat> detect(Path modelPath) {
    if (modelPath == null) {
      return Optional.empty();
    }
    if (Files.isDirectory(modelPath)) {
      Optional<ModelFormat> fromContents = detectInDirectory(modelPath);
      if (fromContents.isPresent()) {
        return fromContents;
      }
    } else if (Files.isRegularFile(modelPath)) {
      Path fileName = modelPath.getFileName();
      if (fileName != null) {
        return detect(fileName.toString());
      }
    }
    return detect(modelPath.toString());
  }

  private static Optional<ModelFormat> detectInDirectory(Path directory) {
    List<ModelFormat> found = new ArrayList<>();
    try (Stream<Path> entries = Files.list(directory)) {
      entries
          .filter(Files::isRegularFile)
          .map(entry -> detect(entry.getFileName().toString()))
          .flatMap(Optional::stream)
          .forEach(found::add);
    } catch (IOException | UncheckedIOException e) {
      return Optional.empty();
    }
    for (ModelFormat preferred :
        List.of(ModelFormat.SAFETENSORS, ModelFormat.PYTORCH, ModelFormat.GGUF)) {
      if (found.contains(preferred)) {
        return Optional.of(preferred);
      }
    }
    return Optional.empty();
  }
}
