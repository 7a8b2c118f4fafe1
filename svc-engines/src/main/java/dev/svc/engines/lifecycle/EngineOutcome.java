package dev.svc.engines.lifecycle;

/**
 * How one engine of a suite ended: its session's result, or the error that stopped it.
 *
 * @param engine the engine's catalog name
 * @param result the session's result; null when it failed
 * @param error why it failed; null when it succeeded
 */
public record EngineOutcome<T>(String engine, T result, EngineLifecycleException error) {

  public boolean succeeded() {
    return error == null;
  }
}
