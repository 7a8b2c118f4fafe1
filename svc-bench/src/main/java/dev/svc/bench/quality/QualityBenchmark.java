package dev.svc.bench.quality;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A quality benchmark: reads its public dataset format from {@code <dataset dir>/<name>/}, turns
 * each item into a prompt, and scores an answer. Items are taken in a fixed order (files sorted by
 * name, lines in file order), so a limit always picks the same questions.
 */
public interface QualityBenchmark {

  String name();

  /** The questions, at most {@code limit} (0: all). */
  List<Question> load(Path datasetDir, int limit) throws DatasetMissingException, IOException;

  /** Whether {@code answer} (the engine's text) is right for {@code question}. */
  boolean correct(Question question, String answer);

  /** The benchmark of a name ({@code mmlu}, {@code gsm8k}, {@code truthfulqa}, {@code hellaswag}). */
  static Optional<QualityBenchmark> named(String name) {
    return switch (name) {
      case "mmlu" -> Optional.of(new Mmlu());
      case "gsm8k" -> Optional.of(new Gsm8k());
      case "truthfulqa" -> Optional.of(new TruthfulQa());
      case "hellaswag" -> Optional.of(new HellaSwag());
      default -> Optional.empty();
    };
  }

  /** The files under {@code dir} (recursively) whose names match, sorted by path. */
  static List<Path> files(Path dir, String glob) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    var matcher = dir.getFileSystem().getPathMatcher("glob:" + glob);
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).filter(p -> matcher.matches(p.getFileName())).sorted().toList();
    }
  }
}
