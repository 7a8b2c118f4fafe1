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
    assertThat(RunOutput.headline(QualityScore.of(3, 4).toJson())).isEqualTo("accuracy 0.750 (3/4)");
  }

  @Test
  void aPerformanceBenchmarksHeadlineIsItsOutputThroughput() {
    assertThat(RunOutput.headline(new JsonObject().put("output_token_throughput", 123.45))).isEqualTo("123.5 tokens/s");
    assertThat(RunOutput.headline(new JsonObject())).isEmpty();
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
