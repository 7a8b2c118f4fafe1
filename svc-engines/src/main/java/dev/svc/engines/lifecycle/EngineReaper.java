package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.DockerClient;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Stops and removes the engine containers still running when the JVM exits on SIGINT or SIGTERM:
 * each run registers its container's name before creating it and unregisters it once removed; one
 * JVM shutdown hook, installed with the first registration, cleans up what is left.
 */
final class ContainerReaper {

  private static final ContainerReaper INSTANCE = new ContainerReaper();

  private record Tracked(DockerClient docker, LogSink sink) {}

  private final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
  private boolean hookInstalled;
  private volatile boolean shuttingDown;

  static ContainerReaper instance() {
    return INSTANCE;
  }

  /**
   * Tracks a container by name.
   *
   * @throws IllegalStateException when the JVM is already shutting down
   */
  synchronized void track(String name, DockerClient docker, LogSink sink) {
    if (shuttingDown) {
      throw new IllegalStateException("The JVM is shutting down; no engine container is started.");
    }
    if (!hookInstalled) {
      Runtime.getRuntime().addShutdownHook(new Thread(this::reapAll, "svc-engine-cleanup"));
      hookInstalled = true;
    }
    tracked.put(name, new Tracked(docker, sink));
  }

  void untrack(String name) {
    tracked.remove(name);
  }

  private void reapAll() {
    shuttingDown = true;
    for (String name : List.copyOf(tracked.keySet())) {
      Tracked entry = tracked.remove(name);
      if (entry == null) {
        continue;
      }
      String tag = LifecycleStage.CLEANUP.tag() + " ";
      log(entry.sink(), tag + "The process is exiting: stopping and removing " + name);
      ContainerCleanup.stopAndRemove(entry.docker(), name, line -> log(entry.sink(), line));
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
