package dev.svc.agent.engine;

import java.util.function.Consumer;

/** A started benchmark: the local {@code svc run} process or the benchmark container. Blocking API. */
interface RunningBenchmark {

  /** Blocks until it ends and every output line has been handed on; its exit status. */
  int awaitExit() throws InterruptedException;

  /**
   * Ends it: when this returns, its process tree or container is gone, and so is every engine
   * container the run started.
   */
  void stop(Consumer<String> log);

  /** The local process's id, for the job record (so a restarted agent can end an orphan); -1 for a container. */
  long pid();
}
