package dev.svc.engines.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthPolicyTest {

  @Test
  void defaultStartsAtOneSecondDoublesToTenAndGivesUpAfterFiveMinutes() {
    HealthPolicy policy = HealthPolicy.DEFAULT;
    List<Long> intervals = new ArrayList<>();
    Duration interval = policy.initialInterval();
    for (int i = 0; i < 7; i++) {
      intervals.add(interval.toSeconds());
      interval = policy.next(interval);
    }

    assertThat(intervals).containsExactly(1L, 2L, 4L, 8L, 10L, 10L, 10L);
    assertThat(policy.timeout()).isEqualTo(Duration.ofSeconds(300));
  }

  @Test
  void inconsistentPoliciesAreRefused() {
    assertThatThrownBy(() -> new HealthPolicy(Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(10)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HealthPolicy.DEFAULT.withTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
