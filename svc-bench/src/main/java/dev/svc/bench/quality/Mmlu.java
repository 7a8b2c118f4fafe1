package dev.svc.bench.quality;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * MMLU in its public CSV layout: {@code <subject>_test.csv}, no header, columns question, A, B,
 * C, D, answer letter. Zero-shot prompt; the first choice letter of the answer is scored.
 */
final class Mmlu implements QualityBenchmark {

  @Override
  public String name() {
    return "mmlu";
  }

  @Override
  public List<Question> load(Path datasetDir, int limit) throws DatasetMissingException, IOException {
    Path dir = datasetDir.resolve(name());
    List<Path> files = QualityBenchmark.files(dir, "*_test.csv");
    if (files.isEmpty()) {
      throw new DatasetMissingException(name(), dir, "<subject>_test.csv files");
    }
    List<Question> out = new ArrayList<>();
    for (Path file : files) {
      String subject = file.getFileName().toString().replaceFirst("_test\\.csv$", "").replace('_', ' ');
      List<List<String>> rows = CsvRows.parse(Files.readString(file, StandardCharsets.UTF_8));
      for (int i = 0; i < rows.size(); i++) {
        List<String> row = rows.get(i);
        if (row.size() < 6) {
          throw new IOException(file + " row " + (i + 1) + " has " + row.size() + " columns; MMLU rows have 6");
        }
        String answer = row.get(5).trim();
        if (!answer.matches("[ABCD]")) {
          throw new IOException(file + " row " + (i + 1) + " has answer '" + answer + "'; expected A, B, C or D");
        }
        StringBuilder prompt = new StringBuilder("The following is a multiple choice question about ").append(subject)
            .append(". Reply with the letter of the correct answer.\n\n").append(row.get(0).trim()).append('\n');
        for (int c = 0; c < 4; c++) {
          prompt.append(Answers.letter(c)).append(". ").append(row.get(c + 1).trim()).append('\n');
        }
        out.add(new Question(subject + "#" + (i + 1), prompt.append("Answer:").toString(), answer));
        if (limit > 0 && out.size() == limit) {
          return out;
        }
      }
    }
    return out;
  }

  @Override
  public boolean correct(Question question, String answer) {
    return Answers.choice(answer, 4).map(question.expected()::equals).orElse(false);
  }
}
