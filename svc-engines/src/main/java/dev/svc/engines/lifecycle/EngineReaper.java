package dev.svc.engines.lifecycle;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stops the engines still running when the JVM exits on SIGINT or SIGTERM (a container is also
 * removed): each run registers its engine before starting it and unregisters it once stopped; one
 * JVM shutdown hook, installed with the first registration, stops what is left.
 */
final class EngineReaper {

  private static final EngineReaper INSTANCE = new EngineReaper();

  private final Map<EngineInstance, LogSink> tracked = new ConcurrentHashMap<>();
  private boolean hookInstalled;
  private volatile boolean shuttingDown;

  static EngineReaper instance() {
    return INSTANCE;
  }

  /**
   * Tracks an engine.
   *
   * @throws IllegalStateException when the JVM is already shutting down
   */
  synchronized void track(EngineInstance engine, LogSink sink) {
    if (shuttingDown) {
      throw new IllegalStateException("The JVM is shutting down; no engine is started.");
    }
    if (!hookInstalled) {
      Runtime.getRuntime().addShutdownHook(new Thread(this::reapAll, "svc-engine-cleanup"));
      hookInstalled = true;
    }
    tracked.put(engine, sink);
  }

  void untrack(EngineInstance engine) {
    tracked.remove(engine);
  }

  private void reapAll() {
    shuttingDown = true;
    for (EngineInstance engine : List.copyOf(tracked.keySet())) {
      LogSink sink = tracked.remove(engine);
      if (sink == null) {
        continue;
      }
      log(sink, LifecycleStage.CLEANUP.tag() + " The process is exiting: " + engine.stopAction());
      engine.stop(line -> log(sink, line));
    }
  }

  private static void log(LogSink sink, String line) {
    try {
      sink.log(line);
    } catch (RuntimeException e) {
      // the sink may already be closed by another hook: the line goes to stderr instead
      System.err.println(line);
    }
  }
}
