package dev.svc.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The 95 % Student-t interval of a mean over repeats, and Welch's test of whether two means differ beyond the noise. */
class ConfidenceTest {

  @Test
  void threeRepeatsGiveTheMeanTheirSampleDeviationAndTheStudentTInterval() {
    Confidence c = Confidence.of(new double[] {10, 12, 14});

    assertThat(c.mean()).isEqualTo(12.0);
    assertThat(c.std()).isEqualTo(2.0);
    assertThat(c.n()).isEqualTo(3);
    // t(0.975, 2 df) = 4.303; half-width 4.303 × 2 / √3
    assertThat(c.halfWidth()).isCloseTo(4.9687, within(1e-4));
    assertThat(c.low()).isCloseTo(7.0313, within(1e-4));
    assertThat(c.high()).isCloseTo(16.9687, within(1e-4));
    assertThat(c.toJson(3)).isEqualTo(new JsonObject().put("mean", 12.0).put("std", 2.0).put("n", 3).put("low", 7.031)
        .put("high", 16.969));
    assertThat(Confidence.fromJson(c.toJson(3))).isEqualTo(new Confidence(12.0, 2.0, 3, 7.031, 16.969));
  }

  @Test
  void oneValueHasNoIntervalAndNothingIsNotAFigure() {
    Confidence one = Confidence.of(new double[] {5});
    assertThat(one.halfWidth()).isNull();
    assertThat(one.toJson(3).getValue("low")).isNull();
    assertThat(Confidence.fromJson(one.toJson(3))).isEqualTo(one);
    assertThatThrownBy(() -> Confidence.of(new double[0])).isInstanceOf(IllegalArgumentException.class);
    assertThat(Confidence.fromJson("12")).isNull();
    assertThat(Confidence.fromJson(new JsonObject().put("mean", 1.0))).isNull();
  }

  @Test
  void theQuantilesOfStudentsTAreTheTablesAndApproachTheNormalOne() {
    assertThat(Confidence.t975(1)).isEqualTo(12.706);
    assertThat(Confidence.t975(2.9)).as("Welch's fractional df, rounded down").isEqualTo(4.303);
    assertThat(Confidence.t975(30)).isEqualTo(2.042);
    assertThat(Confidence.t975(40)).isCloseTo(2.021, within(0.002));
    assertThat(Confidence.t975(120)).isCloseTo(1.980, within(0.002));
    assertThat(Confidence.t975(1e9)).isCloseTo(1.960, within(0.001));
    assertThatThrownBy(() -> Confidence.t975(0.5)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aDifferenceIsWithinTheNoiseWhenWelchsIntervalOfItHoldsZero() {
    Confidence a = Confidence.of(new double[] {100, 104, 96});
    Confidence close = Confidence.of(new double[] {103, 107, 99});
    Confidence far = Confidence.of(new double[] {130, 131, 129});

    assertThat(Confidence.withinNoise(a, close)).isTrue();
    assertThat(Confidence.withinNoise(close, a)).isTrue();
    assertThat(Confidence.withinNoise(a, far)).isFalse();
    // exact repeats: only the same value is noise
    Confidence flat = Confidence.of(new double[] {7, 7});
    assertThat(Confidence.withinNoise(flat, Confidence.of(new double[] {7, 7, 7}))).isTrue();
    assertThat(Confidence.withinNoise(flat, Confidence.of(new double[] {8, 8}))).isFalse();
    // one run says nothing about the noise
    assertThat(Confidence.withinNoise(a, Confidence.of(new double[] {100}))).isFalse();
    assertThat(Confidence.withinNoise(a, null)).isFalse();
  }
}
