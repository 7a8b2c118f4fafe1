package dev.svc.engines.lifecycle;

/** What runs against a healthy engine (the benchmark); its container is removed afterwards. */
@FunctionalInterface
public interface EngineSession<T> {

  T run(RunningEngine engine) throws Exception;
}
