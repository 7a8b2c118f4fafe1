package dev.svc.engines.lifecycle;

import java.util.List;

/**
 * An engine run that could not go on, with the stage it stopped in and, where a container ran,
 * its last log lines (already part of the message, redacted).
 */
public final class EngineLifecycleException extends RuntimeException {

  private final LifecycleStage stage;
  private final List<String> containerLogTail;

  EngineLifecycleException(LifecycleStage stage, String message, List<String> containerLogTail, Throwable cause) {
    super(message, cause);
    this.stage = stage;
    this.containerLogTail = List.copyOf(containerLogTail);
  }

  EngineLifecycleException(LifecycleStage stage, String message, Throwable cause) {
    this(stage, message, List.of(), cause);
  }

  public LifecycleStage stage() {
    return stage;
  }

  /** The container's last log lines when the error came from a running container; else empty. */
  public List<String> containerLogTail() {
    return containerLogTail;
  }
}
