package dev.svc.engines.lifecycle;

import java.time.Duration;
import java.util.Objects;

/**
 * How long and how often the lifecycle polls an engine's health endpoint: the first retry after
 * {@code initialInterval}, each next one after twice the last, at most {@code maxInterval}, until
 * {@code timeout} has passed since the engine started.
 */
public record HealthPolicy(Duration initialInterval, Duration maxInterval, Duration timeout) {

  /** The mission's limits: 1 s, doubling, at most 10 s, 300 s in all. */
  public static final HealthPolicy DEFAULT =
      new HealthPolicy(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(300));

  public HealthPolicy {
    Objects.requireNonNull(initialInterval, "initialInterval");
    Objects.requireNonNull(maxInterval, "maxInterval");
    Objects.requireNonNull(timeout, "timeout");
    if (initialInterval.isNegative() || initialInterval.isZero() || maxInterval.compareTo(initialInterval) < 0
        || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(
          "A health policy needs 0 < initial interval <= max interval and a positive timeout.");
    }
  }

  /** The interval after this one: doubled, capped at the maximum. */
  public Duration next(Duration interval) {
    Duration doubled = interval.multipliedBy(2);
    return doubled.compareTo(maxInterval) > 0 ? maxInterval : doubled;
  }

  public HealthPolicy withTimeout(Duration newTimeout) {
    return new HealthPolicy(initialInterval, maxInterval, newTimeout);
  }
}
