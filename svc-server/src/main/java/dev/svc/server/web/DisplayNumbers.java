package dev.svc.server.web;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** How the result pages print metric values: whole numbers as they are, others to a readable precision. */
final class DisplayNumbers {

  private DisplayNumbers() {
  }

  /** Text of a metric value; "—" for null, so a missing figure never looks like a zero. */
  static String format(Object value) {
    if (value == null) {
      return "—";
    }
    if (!(value instanceof Number n)) {
      return value.toString();
    }
    double d = n.doubleValue();
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return String.valueOf(d);
    }
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return value.toString();
    }
    int decimals = Math.abs(d) >= 1000 ? 1 : Math.abs(d) >= 1 ? 2 : 4;
    return BigDecimal.valueOf(d).setScale(decimals, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
  }

  /** {@code value} formatted, followed by "± h", the half-width of {@code interval}, where it has one. */
  static String withInterval(Object value, dev.svc.core.metrics.Confidence interval) {
    return value == null || interval == null || interval.halfWidth() == null ? format(value)
        : format(value) + " ± " + format(interval.halfWidth());
  }
}
