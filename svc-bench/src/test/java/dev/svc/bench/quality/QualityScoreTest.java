package dev.svc.bench.quality;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.protocol.BadMessage;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A quality score as a result's metrics: written, read back, and refused when it is not whole. */
class QualityScoreTest {

  @Test
  void writesTheQualityMetricsAndReadsThemBack() {
    QualityScore score = QualityScore.of(2, 3);
    assertThat(score.toJson()).isEqualTo(new JsonObject().put("accuracy", 2 / 3.0).put("correct", 2).put("total", 3));
    assertThat(QualityScore.in(score.toJson())).contains(score);
    assertThat(QualityScore.of(0, 0).accuracy()).isZero();
  }

  @Test
  void aPerformanceBenchmarksMetricsHoldNoScore() {
    assertThat(QualityScore.in(new JsonObject().put("output_token_throughput", 12.5))).isEmpty();
    assertThat(QualityScore.in(new JsonObject())).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"accuracy\":\"high\",\"correct\":1,\"total\":2}  | Field 'accuracy' must be a number",
      "{\"accuracy\":1.5,\"correct\":1,\"total\":2}       | Field 'accuracy' must be between 0 and 1",
      "{\"accuracy\":0.5,\"total\":2}                     | A quality score needs 'correct' and 'total'",
      "{\"accuracy\":0.5,\"correct\":1}                   | A quality score needs 'correct' and 'total'",
      "{\"accuracy\":0.5,\"correct\":1.5,\"total\":2}     | Field 'correct' must be an integer",
      "{\"accuracy\":0.5,\"correct\":-1,\"total\":2}      | Field 'correct' must be between 0 and 2147483647",
      "{\"accuracy\":1,\"correct\":3,\"total\":2}         | Field 'correct' must be at most the total, 2",
  })
  void refusesMetricsThatAreNotAWholeScore(String metrics, String sentence) {
    assertThatThrownBy(() -> QualityScore.in(new JsonObject(metrics))).isInstanceOf(BadMessage.class).hasMessage(sentence);
  }
}
