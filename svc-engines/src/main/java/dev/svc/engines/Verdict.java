package dev.svc.engines;

import java.util.Objects;

/**
 * Whether an engine may run a model on a machine, and if not, why.
 *
 * <p>A forced verdict is compatible yet keeps the reason and kind that {@code force} bypassed,
 * so callers can record or show what was overridden. {@code reason()} is null exactly when
 * nothing stood in the way.
 *
 * @param compatible whether the run may go ahead (true for a forced verdict)
 * @param reason why the engine does not fit, or null when it fits
 * @param kind which rule refused it, {@link Kind#NONE} when it fits
 * @param forced whether {@code force} let an incompatible run go ahead
 */
public record Verdict(boolean compatible, String reason, Kind kind, boolean forced) {

  /** Which compatibility rule a verdict is about. */
  public enum Kind {
    NONE,
    PLATFORM,
    FORMAT
  }

  private static final Verdict COMPATIBLE = new Verdict(true, null, Kind.NONE, false);

  public Verdict {
    Objects.requireNonNull(kind, "kind");
    boolean blocked = kind != Kind.NONE;
    if (blocked != (reason != null)) {
      throw new IllegalArgumentException("A verdict has a reason exactly when its kind is not NONE.");
    }
    if (blocked && compatible != forced) {
      throw new IllegalArgumentException("A blocked verdict is compatible only when forced.");
    }
    if (!blocked && (!compatible || forced)) {
      throw new IllegalArgumentException("A verdict with nothing in the way is compatible and not forced.");
    }
  }

  public static Verdict ok() {
    return COMPATIBLE;
  }

  public static Verdict incompatible(Kind kind, String reason) {
    return new Verdict(false, Objects.requireNonNull(reason, "reason"), kind, false);
  }

  /** This verdict with {@code force} applied: an incompatible one becomes compatible and forced. */
  public Verdict bypassed() {
    return compatible ? this : new Verdict(true, reason, kind, true);
  }
}
