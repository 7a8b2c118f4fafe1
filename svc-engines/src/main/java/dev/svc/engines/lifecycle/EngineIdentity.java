package dev.svc.engines.lifecycle;

import java.nio.file.Path;

/** Which running thing serves an engine: a container or a local process ({@code svc run --native}). */
public sealed interface EngineIdentity {

  /** How log lines and messages name it: {@code kitt-<timestamp>} or {@code llama-server (pid 4242)}. */
  String name();

  /**
   * An engine container.
   *
   * @param id Docker's id of the container
   * @param name {@code kitt-<timestamp>}
   */
  record Container(String id, String name) implements EngineIdentity {}

  /**
   * An engine running as a process of this host.
   *
   * @param pid its process id
   * @param binary the executable it runs
   */
  record LocalProcess(long pid, Path binary) implements EngineIdentity {
    @Override
    public String name() {
      return binary.getFileName() + " (pid " + pid + ")";
    }
  }
}
