package dev.svc.agent.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Steps 1-3 of the mission's model workflow, in order: the model already in local storage → the
 * share mounted (when one is configured) → the model looked up on the share, confined to its mount
 * root, and copied into storage. Benchmarks always run against the local copy. Blocking.
 */
public final class ModelWorkflow {

  /** The local model, and whether this run copied it (only such a copy is removed by auto_cleanup). */
  public record Resolved(Path local, boolean copied) {
  }

  private final ModelStorage storage;
  private final String shareSource;
  private final Path shareMount;
  private final ShareMounter mounter;

  /**
   * @param shareMount the share's mount point, or null when none is configured
   */
  public ModelWorkflow(ModelStorage storage, String shareSource, Path shareMount, ShareMounter mounter) {
    this.storage = storage;
    this.shareSource = shareSource == null ? "" : shareSource;
    this.shareMount = shareMount == null ? null : shareMount.toAbsolutePath().normalize();
    this.mounter = mounter;
  }

  public Resolved resolve(String modelPath, Consumer<String> log) throws ModelLookupException {
    Path key = ModelPaths.key(modelPath, storage.root(), shareMount);
    try {
      storage.open(log);
    } catch (IOException e) {
      throw new ModelLookupException("Cannot use the model storage " + storage.root() + ": " + e.getMessage(), e);
    }
    Optional<ShareLookup.Found> local = storage.find(key);
    if (local.isPresent()) {
      log.accept("Model workflow 1/3: " + local.get().path() + " is in local storage; using it");
      return new Resolved(local.get().path(), false);
    }
    log.accept("Model workflow 1/3: " + key + " is not in local storage " + storage.root());
    if (shareMount == null) {
      throw new ModelLookupException("Model " + modelPath + " is not in the model storage " + storage.root()
          + " and no model share is configured (model_share_mount)");
    }
    log.accept("Model workflow 2/3: making sure the model share " + shareMount + " is mounted");
    mounter.ensureMounted(shareSource, shareMount, log);
    log.accept("Model workflow 3/3: looking up " + key + " on the share, confined to " + shareMount);
    ShareLookup.Found found = new ShareLookup(shareMount).find(key);
    // a glob may have named something that is already in storage under its own key
    Optional<ShareLookup.Found> cached = found.relative().equals(key) ? Optional.empty() : storage.find(found.relative());
    if (cached.isPresent()) {
      log.accept("Model workflow: " + cached.get().path() + " is in local storage; using it");
      return new Resolved(cached.get().path(), false);
    }
    return new Resolved(storage.copyIn(found, shareMount, log), true);
  }
}
