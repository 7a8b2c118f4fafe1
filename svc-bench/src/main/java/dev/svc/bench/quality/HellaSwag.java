package dev.svc.bench.quality;

import io.vertx.core.json.JsonArray;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * HellaSwag in its public JSON-lines layout ({@code hellaswag_val.jsonl}: {@code ctx}, four
 * {@code endings}, {@code label}). Engines are asked through a text API, so the four endings
 * are offered as lettered choices and the chosen letter is scored (not log-likelihood ranking).
 */
final class HellaSwag implements QualityBenchmark {

  @Override
  public String name() {
    return "hellaswag";
  }

  @Override
  public List<Question> load(Path datasetDir, int limit) throws DatasetMissingException, IOException {
    Path dir = datasetDir.resolve(name());
    List<Path> files = QualityBenchmark.files(dir, "hellaswag_val.jsonl");
    if (files.isEmpty()) {
      throw new DatasetMissingException(name(), dir, "hellaswag_val.jsonl");
    }
    List<Question> out = new ArrayList<>();
    for (JsonLines.Line line : JsonLines.read(files, limit)) {
      Object endings = line.json().getValue("endings");
      Object label = line.json().getValue("label");
      if (!(endings instanceof JsonArray list) || list.size() != 4 || !(label instanceof Number n)
          || n.intValue() < 0 || n.intValue() > 3) {
        throw new IOException(line.where() + ": needs four 'endings' and a 'label' 0..3");
      }
      StringBuilder prompt = new StringBuilder("Choose the most likely continuation. Reply with its letter.\n\n")
          .append(line.string("ctx").trim()).append('\n');
      for (int c = 0; c < 4; c++) {
        prompt.append(Answers.letter(c)).append(". ").append(String.valueOf(list.getValue(c)).trim()).append('\n');
      }
      out.add(new Question("hellaswag#" + line.number(), prompt.append("Answer:").toString(), Answers.letter(n.intValue())));
    }
    return out;
  }

  @Override
  public boolean correct(Question question, String answer) {
    return Answers.choice(answer, 4).map(question.expected()::equals).orElse(false);
  }
}
