package dev.svc.engines.lifecycle;

import java.util.Locale;

/** The ordered stages of one engine run; log lines carry the stage's tag. */
public enum LifecycleStage {
  COMPATIBILITY,
  IMAGE,
  CREATE,
  HEALTH,
  BENCHMARK,
  CLEANUP;

  /** The tag log lines of this stage start with, e.g. {@code [health]}. */
  public String tag() {
    return "[" + name().toLowerCase(Locale.ROOT) + "]";
  }
}
