package dev.svc.bench.quality;

import dev.svc.bench.measure.RequestRecord;
import dev.svc.core.metrics.MetricKeys;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Optional;

/**
 * A quality benchmark's score: {@code accuracy} = correct / total, where total counts every
 * question (a failed request is a wrong answer, and its error is reported). The runner writes it
 * as a result's metrics with {@link #toJson}; the run's summary reads it back with {@link #in}.
 *
 * @param accuracy from 0 to 1; 0 when there were no questions
 */
public record QualityScore(double accuracy, int correct, int total) {

  public static QualityScore of(int correct, int total) {
    return new QualityScore(total == 0 ? 0.0 : correct / (double) total, correct, total);
  }

  /** Scores the answers to the questions, in order; {@code errors} collects the failed requests. */
  public static QualityScore score(QualityBenchmark benchmark, List<Question> questions, List<RequestRecord> answers,
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
    return of(correct, questions.size());
  }

  /** The metrics {@code accuracy}, {@code correct}, {@code total}. */
  public JsonObject toJson() {
    return new JsonObject().put(MetricKeys.ACCURACY, accuracy).put(MetricKeys.CORRECT, correct).put(MetricKeys.TOTAL, total);
  }

  /**
   * The score in a result's metrics; empty when they hold none (a performance benchmark's, which
   * have no {@code accuracy}). Metrics with an accuracy but no whole counts are refused.
   */
  public static Optional<QualityScore> in(JsonObject metrics) {
    Double accuracy = Fields.boundedNumber(metrics, MetricKeys.ACCURACY, 1);
    if (accuracy == null) {
      return Optional.empty();
    }
    Integer correct = Fields.optInt(metrics, MetricKeys.CORRECT, null, 0, Integer.MAX_VALUE);
    Integer total = Fields.optInt(metrics, MetricKeys.TOTAL, null, 0, Integer.MAX_VALUE);
    if (correct == null || total == null) {
      throw new BadMessage("A quality score needs '" + MetricKeys.CORRECT + "' and '" + MetricKeys.TOTAL + "'");
    }
    if (correct > total) {
      throw new BadMessage("Field '" + MetricKeys.CORRECT + "' must be at most the total, " + total);
    }
    return Optional.of(new QualityScore(accuracy, correct, total));
  }
}
