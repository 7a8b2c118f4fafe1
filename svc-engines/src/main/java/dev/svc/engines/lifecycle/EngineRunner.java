package dev.svc.engines.lifecycle;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs engines through the stages compatibility → start → health → benchmark → stop, in a
 * container ({@link EngineLifecycle}) or as a local process ({@link NativeLifecycle}).
 *
 * <p><b>A blocking API.</b> Call it from a worker thread, never from a Vert.x event loop (it
 * refuses those). One engine runs at a time in a JVM, whichever runner starts it: engines share
 * the host's network and GPUs.
 */
public interface EngineRunner extends AutoCloseable {

  /** How many of the engine's last log lines an error carries. */
  int LOG_TAIL_LINES = 20;

  /** How long an engine gets to exit after SIGTERM before it is killed. */
  Duration STOP_GRACE = Duration.ofSeconds(10);

  /**
   * Runs one engine through every stage and returns what the session returned. The engine is
   * stopped (a container also removed) before this returns or throws, and by a JVM shutdown hook
   * when the process exits on SIGINT/SIGTERM first.
   *
   * @throws EngineLifecycleException naming the stage that failed (the session's own exception is
   *     its cause)
   */
  <T> T run(EngineLaunch launch, LogSink sink, EngineSession<T> session);

  /**
   * Runs a suite's engines one after another, each through every stage (stopped before the next
   * starts); a failed engine does not stop the ones after it.
   */
  default <T> List<EngineOutcome<T>> runSuite(List<EngineLaunch> launches, LogSink sink, EngineSession<T> session) {
    List<EngineOutcome<T>> outcomes = new ArrayList<>();
    for (int i = 0; i < launches.size(); i++) {
      EngineLaunch launch = launches.get(i);
      String engine = launch.engine().name();
      sink.log("[suite] Engine " + (i + 1) + " of " + launches.size() + ": " + engine);
      try {
        outcomes.add(new EngineOutcome<>(engine, run(launch, sink, session), null));
      } catch (EngineLifecycleException e) {
        sink.log("[suite] " + engine + " failed: " + EngineRun.firstLine(e.getMessage()));
        outcomes.add(new EngineOutcome<>(engine, null, e));
        if (Thread.currentThread().isInterrupted()) {
          break;
        }
      }
    }
    return outcomes;
  }

  /** Releases what the runner holds (a Docker client it made); nothing by default. */
  @Override
  default void close() throws IOException {}
}
