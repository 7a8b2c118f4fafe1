package dev.svc.agent.storage;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Makes sure the model share is mounted. The real implementation ({@link SystemShareMounter})
 * runs the {@code mount} tool; hosts without an NFS server (and tests) swap in another.
 */
public interface ShareMounter {

  /**
   * Returns once {@code mountPoint} holds the share, mounting it when it does not.
   *
   * @param source the NFS source ({@code host:/path}), possibly empty when fstab names the mount point
   * @param log receives one line per step
   * @throws ModelLookupException when the share cannot be mounted
   */
  void ensureMounted(String source, Path mountPoint, Consumer<String> log) throws ModelLookupException;
}
