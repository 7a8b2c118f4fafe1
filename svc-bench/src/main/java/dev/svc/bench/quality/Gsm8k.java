package dev.svc.bench.quality;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * GSM8K in its public JSON-lines layout ({@code test.jsonl}: {@code question}, {@code answer}
 * whose last line is {@code #### <number>}). The last number of the engine's answer is scored.
 */
final class Gsm8k implements QualityBenchmark {

  @Override
  public String name() {
    return "gsm8k";
  }

  @Override
  public List<Question> load(Path datasetDir, int limit) throws DatasetMissingException, IOException {
    Path dir = datasetDir.resolve(name());
    List<Path> files = QualityBenchmark.files(dir, "test.jsonl");
    if (files.isEmpty()) {
      throw new DatasetMissingException(name(), dir, "test.jsonl");
    }
    List<Question> out = new ArrayList<>();
    for (JsonLines.Line line : JsonLines.read(files, limit)) {
      String answer = line.string("answer");
      int mark = answer.lastIndexOf("####");
      if (mark < 0) {
        throw new IOException(line.where() + ": the answer has no '#### <number>' line");
      }
      String expected = Answers.normalNumber(answer.substring(mark + 4).trim());
      String prompt = "Solve the problem. End your reply with the final answer as a number.\n\nQuestion: "
          + line.string("question").trim() + "\nAnswer:";
      out.add(new Question("gsm8k#" + line.number(), prompt, expected));
    }
    return out;
  }

  @Override
  public boolean correct(Question question, String answer) {
    return Answers.lastNumber(answer).map(question.expected()::equals).orElse(false);
  }
}
