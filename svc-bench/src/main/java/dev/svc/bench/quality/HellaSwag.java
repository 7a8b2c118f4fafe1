package dev.svc.bench.quality;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonObject;
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
      Item item = line.as(Item::parse);
      StringBuilder prompt = new StringBuilder("Choose the most likely continuation. Reply with its letter.\n\n")
          .append(item.context().trim()).append('\n');
      for (int c = 0; c < 4; c++) {
        prompt.append(Answers.letter(c)).append(". ").append(item.endings().get(c).trim()).append('\n');
      }
      out.add(new Question("hellaswag#" + line.number(), prompt.append("Answer:").toString(), Answers.letter(item.label())));
    }
    return out;
  }

  /**
   * One line of {@code hellaswag_val.jsonl}: the context, its four endings and the index of the
   * right one (a number, or a string of digits as some copies of the file have it).
   */
  record Item(String context, List<String> endings, int label) {

    static Item parse(JsonObject json) {
      String context = Fields.optString(json, "ctx", null);
      if (context == null) {
        throw new BadMessage("Field 'ctx' is required");
      }
      List<String> endings = Fields.optStringList(json, "endings");
      Integer label = Fields.optInt(json, "label", null, 0, 3);
      if (endings == null || endings.size() != 4 || label == null) {
        throw new BadMessage("needs four 'endings' and a 'label' 0..3");
      }
      return new Item(context, List.copyOf(endings), label);
    }
  }

  @Override
  public boolean correct(Question question, String answer) {
    return Answers.choice(answer, 4).map(question.expected()::equals).orElse(false);
  }
}
