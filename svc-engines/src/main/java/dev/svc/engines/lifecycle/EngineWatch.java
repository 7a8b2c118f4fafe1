package dev.svc.engines.lifecycle;

import java.time.Duration;
import java.util.Optional;

/**
 * Watches a started engine while the benchmark session runs. An engine that exits (a crash, a
 * kill), or whose Docker stops answering for {@link #UNREACHABLE}, ends the session at once by
 * interrupting its thread: otherwise the benchmark would go on against a dead port, request after
 * failed request, or against a container that nothing can stop any more.
 */
final class EngineWatch implements AutoCloseable {

  /** How often the engine's state is read (a process check, or one Docker inspect). */
  static final Duration INTERVAL = Duration.ofSeconds(1);
  /** How long the engine's state may be unreadable (Docker not answering) before the run is lost. */
  static final Duration UNREACHABLE = Duration.ofSeconds(3);

  /** Why the engine was lost; {@code engineExited} when its own last log lines say why. */
  record Lost(String why, boolean engineExited) {}

  private final EngineInstance instance;
  private final String engine;
  private final Thread session;
  private final Thread watcher;
  private Lost lost;
  private boolean open = true;

  private EngineWatch(EngineInstance instance, String engine, Thread session) {
    this.instance = instance;
    this.engine = engine;
    this.session = session;
    this.watcher = new Thread(this::watch, "svc-engine-watch");
    watcher.setDaemon(true);
  }

  /** Starts watching on a thread of its own; the calling thread is the one interrupted when the engine is lost. */
  static EngineWatch start(EngineInstance instance, String engine) {
    EngineWatch watch = new EngineWatch(instance, engine, Thread.currentThread());
    watch.watcher.start();
    return watch;
  }

  private void watch() {
    long failingSince = -1;
    while (true) {
      try {
        Thread.sleep(INTERVAL.toMillis());
      } catch (InterruptedException e) {
        return; // closed
      }
      Lost found;
      try {
        found = instance.exitState().map(state -> new Lost(engine + "'s " + instance.label() + " " + state
            + " during the benchmark", true)).orElse(null);
        failingSince = -1;
      } catch (RuntimeException e) {
        long now = System.nanoTime();
        failingSince = failingSince < 0 ? now : failingSince;
        found = now - failingSince < UNREACHABLE.toNanos() ? null
            : new Lost(instance.unwatchable(e) + " for " + HealthCheck.seconds(now - failingSince)
                + " during the benchmark; " + instance.label() + " is out of reach", false);
      }
      if (found != null) {
        synchronized (this) {
          if (open) {
            lost = found;
            session.interrupt();
          }
        }
        return;
      }
    }
  }

  /**
   * Stops watching. Called on the session's thread; when the watch interrupted it, the interrupt
   * is consumed here (the caller turns it into the engine's failure, and the cleanup must not see it).
   */
  @Override
  public void close() {
    synchronized (this) {
      if (!open) {
        return;
      }
      open = false;
    }
    watcher.interrupt();
    try {
      watcher.join(INTERVAL.toMillis() * 10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (lost() != null && Thread.currentThread() == session) {
      Thread.interrupted();
    }
  }

  /** Why the engine was lost while the session ran, or null. */
  synchronized Lost lost() {
    return lost;
  }

  /**
   * After the session: the watch's finding, else one last look (an engine that died just before
   * the session ended, whose failed requests ended it first). A state that cannot be read now is
   * no finding: the watch gives Docker {@link #UNREACHABLE} before it calls the engine lost.
   */
  Optional<Lost> verdict() {
    Lost found = lost();
    if (found != null) {
      return Optional.of(found);
    }
    try {
      return instance.exitState().map(state -> new Lost(engine + "'s " + instance.label() + " " + state
          + " during the benchmark", true));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
