package dev.svc.engines.lifecycle;

import java.util.List;
import java.util.Optional;

/**
 * One engine that the shared stages of a run ({@link EngineRun}) start, watch and stop: a
 * container ({@link ContainerInstance}) or a local process ({@link ProcessInstance}).
 */
interface EngineInstance {

  /** What lines call it: {@code kitt-<timestamp>}, {@code llama-server (pid 4242)}. */
  String name();

  /** {@link #name()} with what it is: {@code container kitt-…}, {@code process llama-server (pid …)}. */
  String label();

  /** Creates and starts it, logging each step under {@code [create]}. */
  void start(LogSink log);

  /** How it ended, or empty while it runs. */
  Optional<String> exitState();

  /** Why its state could not be read ({@link #exitState()} threw {@code error}), for the run's failure. */
  default String unwatchable(RuntimeException error) {
    return "The state of " + label() + " could not be read (" + DockerClients.rootMessage(error) + ")";
  }

  /** Up to {@code lines} of the last lines it wrote, or a note when there are none. */
  List<String> logTail(int lines);

  /** What it is once started. */
  EngineIdentity identity();

  boolean gpusRequested();

  /** What it was started as: the image and the words after it, or the binary and its arguments (unmasked). */
  List<String> launchArgs();

  /** The digest of the image it runs, once started; empty for a process, or when it cannot be read. */
  default Optional<String> imageDigest() {
    return Optional.empty();
  }

  /** What stopping it does, for lines: {@code stopping and removing kitt-…}. */
  String stopAction();

  /** What a failed run does with it, for lines: {@code the container is stopped and removed}. */
  String stoppedNote();

  /**
   * Stops it and releases what it holds; safe when it never started or already stopped, and from
   * the shutdown hook's thread.
   *
   * @return null when it is gone, else what went wrong
   */
  RuntimeException stop(LogSink log);
}
