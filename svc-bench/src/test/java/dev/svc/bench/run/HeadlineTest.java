package dev.svc.bench.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.bench.quality.QualityScore;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A benchmark's headline in the summary, and the run's verdict from its benchmarks' outcomes. */
class HeadlineTest {

  @Test
  void aQualityBenchmarksHeadlineIsItsAccuracyAndCounts() {
    assertThat(RunOutput.headline(entry(QualityScore.of(3, 4).toJson()))).isEqualTo("accuracy 0.750 (3/4)");
  }

  @Test
  void aPerformanceBenchmarksHeadlineIsItsOutputThroughput() {
    assertThat(RunOutput.headline(entry(new JsonObject().put("output_token_throughput", 123.45))))
        .isEqualTo("123.5 tokens/s");
    assertThat(RunOutput.headline(entry(new JsonObject()))).isEmpty();
  }

  @Test
  void aRepeatedBenchmarksHeadlineCarriesTheHalfWidthOfItsInterval() {
    JsonObject entry = entry(new JsonObject().put("output_token_throughput", 100.0)).put("confidence",
        new JsonObject().put("figures", new JsonObject().put("output_token_throughput",
            new JsonObject().put("mean", 100.0).put("std", 2.0).put("n", 3).put("low", 95.032).put("high", 104.968))));
    assertThat(RunOutput.headline(entry)).isEqualTo("100.0 ± 4.97 tokens/s");
  }

  private static JsonObject entry(JsonObject metrics) {
    return new JsonObject().put("metrics", metrics);
  }

  @Test
  void aRunPassesWhenItRanBenchmarksAndEveryOnePassed() {
    BenchmarkOutcome passed = new BenchmarkOutcome(new JsonObject(), true, true, List.of());
    BenchmarkOutcome failed = new BenchmarkOutcome(new JsonObject(), false, true, List.of());
    assertThat(SuiteRun.passed(List.of(passed, passed), null)).isTrue();
    assertThat(SuiteRun.passed(List.of(passed, failed), null)).isFalse();
    assertThat(SuiteRun.passed(List.of(), null)).isFalse();
    assertThat(SuiteRun.passed(List.of(passed), "The engine did not start")).isFalse();
  }
}
