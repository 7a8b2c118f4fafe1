package dev.svc.core.domain;

import dev.svc.core.WireNames;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** States of a quick test and the moves between them; the one place that decides what is legal. */
public enum QuickTestStatus {
  QUEUED,
  DISPATCHED,
  RUNNING,
  COMPLETED,
  FAILED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isActive() {
    return this == QUEUED || this == DISPATCHED || this == RUNNING;
  }

  public boolean isTerminal() {
    return !isActive();
  }

  /** The states this one may move to. Dispatched may go back to queued when its lease expires. */
  public Set<QuickTestStatus> next() {
    switch (this) {
      case QUEUED:
        return EnumSet.of(DISPATCHED, RUNNING, FAILED);
      case DISPATCHED:
        return EnumSet.of(QUEUED, RUNNING, COMPLETED, FAILED);
      case RUNNING:
        return EnumSet.of(COMPLETED, FAILED);
      default:
        return EnumSet.noneOf(QuickTestStatus.class);
    }
  }

  public boolean canMoveTo(QuickTestStatus target) {
    return next().contains(target);
  }

  public static Optional<QuickTestStatus> parse(String value) {
    return WireNames.parseExact(values(), value, QuickTestStatus::wireName);
  }
}
