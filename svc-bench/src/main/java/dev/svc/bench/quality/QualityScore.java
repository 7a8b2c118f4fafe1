package dev.svc.bench.quality;

import dev.svc.bench.measure.RequestRecord;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Scores a quality benchmark's answers: {@code accuracy} = correct / total, where total counts
 * every question (a failed request is a wrong answer, and its error is reported).
 */
public final class QualityScore {

  private QualityScore() {
  }

  /** The metrics {@code accuracy}, {@code correct}, {@code total}; {@code errors} collects the failed requests. */
  public static JsonObject score(QualityBenchmark benchmark, List<Question> questions, List<RequestRecord> answers,
      JsonArray errors) {
    if (answers.size() != questions.size()) {
      throw new IllegalArgumentException(answers.size() + " answers for " + questions.size() + " questions");
    }
    int correct = 0;
    for (int i = 0; i < questions.size(); i++) {
      RequestRecord answer = answers.get(i);
      if (!answer.ok()) {
        errors.add(questions.get(i).id() + ": " + answer.error());
      } else if (benchmark.correct(questions.get(i), answer.text())) {
        correct++;
      }
    }
    int total = questions.size();
    return new JsonObject().put("accuracy", total == 0 ? 0.0 : correct / (double) total).put("correct", correct)
        .put("total", total);
  }
}
