package dev.svc.server.legacy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Optional;

/** The one throughput figure the summary table shows: from the first benchmark's metrics. */
public final class HeadlineMetric {

  private static final List<String> KEYS = List.of("avg_tps", "output_token_throughput");

  private HeadlineMetric() {
  }

  /** {@code "avg_tps 103.2"}-style text, or empty when the first benchmark has neither metric. */
  public static Optional<String> of(JsonObject data) {
    if (!(data.getValue("results") instanceof JsonArray results)
        || results.isEmpty()
        || !(results.getValue(0) instanceof JsonObject first)
        || !(first.getValue("metrics") instanceof JsonObject metrics)) {
      return Optional.empty();
    }
    for (String key : KEYS) {
      if (metrics.getValue(key) instanceof Number value) {
        return Optional.of(key + " " + rounded(value));
      }
    }
    return Optional.empty();
  }

  private static String rounded(Number value) {
    double d = value.doubleValue();
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return String.valueOf(d);
    }
    return BigDecimal.valueOf(d).setScale(2, RoundingMode.HALF_UP).stripTrailingZeros()
        .toPlainString();
  }
}
