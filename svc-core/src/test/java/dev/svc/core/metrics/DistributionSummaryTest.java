package dev.svc.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.vertx.core.json.JsonObject;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DistributionSummaryTest {

  @Test
  void percentilesInterpolateBetweenClosestRanks() {
    DistributionSummary s = DistributionSummary.of(new double[] {5, 1, 4, 2, 3});

    assertThat(s.min()).isEqualTo(1);
    assertThat(s.max()).isEqualTo(5);
    assertThat(s.mean()).isEqualTo(3);
    assertThat(s.p50()).isEqualTo(3);
    assertThat(s.p90()).isCloseTo(4.6, within(1e-9));
    assertThat(s.p95()).isCloseTo(4.8, within(1e-9));
    assertThat(s.p99()).isCloseTo(4.96, within(1e-9));
    assertThat(s.std()).isCloseTo(Math.sqrt(2), within(1e-9));
  }

  @Test
  void oneValueIsEveryStatistic() {
    DistributionSummary s = DistributionSummary.of(new double[] {0.1});
    assertThat(s).isEqualTo(new DistributionSummary(0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0));
  }

  @Test
  void noValuesIsAnError() {
    assertThatThrownBy(() -> DistributionSummary.of(new double[0])).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theJsonHasTheSummaryKeysInAscendingOrderAfterRounding() {
    Random random = new Random(1);
    for (int run = 0; run < 100; run++) {
      double[] values = new double[1 + random.nextInt(200)];
      for (int i = 0; i < values.length; i++) {
        values[i] = Math.exp(random.nextGaussian()) * 40;
      }
      JsonObject json = DistributionSummary.of(values).toJson(2);
      assertThat(json.fieldNames()).containsExactlyElementsOf(MetricKeys.STATISTICS);
      double previous = Double.NEGATIVE_INFINITY;
      for (String key : MetricKeys.ASCENDING) {
        assertThat(json.getDouble(key)).isGreaterThanOrEqualTo(previous);
        previous = json.getDouble(key);
      }
      assertThat(json.getDouble(MetricKeys.MEAN)).isBetween(json.getDouble(MetricKeys.MIN), json.getDouble(MetricKeys.MAX));
    }
  }
}
