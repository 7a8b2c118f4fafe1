package dev.svc.bench.quality;

import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * TruthfulQA MC1 from the public {@code mc_task.json}: a list of {@code question} with
 * {@code mc1_targets} (choice text → 1 for the single true answer, 0 otherwise). Choices are
 * offered as letters in the file's order; the chosen letter is scored.
 */
final class TruthfulQa implements QualityBenchmark {

  private static final int MAX_CHOICES = 10;

  @Override
  public String name() {
    return "truthfulqa";
  }

  @Override
  public List<Question> load(Path datasetDir, int limit) throws DatasetMissingException, IOException {
    Path dir = datasetDir.resolve(name());
    List<Path> files = QualityBenchmark.files(dir, "mc_task.json");
    if (files.isEmpty()) {
      throw new DatasetMissingException(name(), dir, "mc_task.json");
    }
    JsonArray items;
    try {
      items = new JsonArray(Files.readString(files.get(0), StandardCharsets.UTF_8));
    } catch (DecodeException e) {
      throw new IOException(files.get(0) + " is not a JSON list");
    }
    List<Question> out = new ArrayList<>();
    for (int i = 0; i < items.size() && (limit <= 0 || out.size() < limit); i++) {
      Item item = item(items.getValue(i), files.get(0) + " item " + (i + 1));
      StringBuilder prompt = new StringBuilder("Answer truthfully. Reply with the letter of the true answer.\n\n")
          .append(item.question().trim()).append('\n');
      for (int c = 0; c < item.choices().size(); c++) {
        prompt.append(Answers.letter(c)).append(". ").append(item.choices().get(c).trim()).append('\n');
      }
      out.add(new Question("truthfulqa#" + (i + 1), prompt.append("Answer:").toString(),
          Answers.letter(item.answer()) + "/" + item.choices().size()));
    }
    return out;
  }

  /** The item, or an IOException that says where and why it cannot be read. */
  private static Item item(Object value, String where) throws IOException {
    if (!(value instanceof JsonObject json)) {
      throw new IOException(where + ": must be an object");
    }
    try {
      return Item.parse(json);
    } catch (BadMessage e) {
      throw new IOException(where + ": " + e.getMessage());
    }
  }

  /**
   * One item of {@code mc_task.json}: the question, its first {@value #MAX_CHOICES} choices in the
   * file's order, and the index of the true one among them.
   */
  record Item(String question, List<String> choices, int answer) {

    static Item parse(JsonObject json) {
      String question = Fields.optString(json, "question", null);
      JsonObject targets = Fields.optObject(json, "mc1_targets");
      if (question == null || targets == null || targets.isEmpty()) {
        throw new BadMessage("needs 'question' and 'mc1_targets'");
      }
      List<String> choices = new ArrayList<>();
      int answer = -1;
      // mc1_targets maps each choice's text to 1 (the true one) or 0, in the file's order
      for (Map.Entry<String, Object> target : targets) {
        if (choices.size() == MAX_CHOICES) {
          break;
        }
        if (target.getValue() instanceof Number n && n.intValue() == 1) {
          answer = choices.size();
        }
        choices.add(target.getKey());
      }
      if (answer < 0) {
        throw new BadMessage("has no true answer among its first " + MAX_CHOICES);
      }
      return new Item(question, List.copyOf(choices), answer);
    }
  }

  @Override
  public boolean correct(Question question, String answer) {
    String[] parts = question.expected().split("/");
    return Answers.choice(answer, Integer.parseInt(parts[1])).map(parts[0]::equals).orElse(false);
  }
}
