package dev.svc.agent.storage;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/** How a model path sent by the server maps to the agent's storage and share. */
public final class ModelPaths {

  private static final Pattern SEGMENTS = Pattern.compile("[/\\\\]");

  private ModelPaths() {
  }

  /**
   * A path with a {@code ..} segment could climb out of the storage or share: refused outright. The
   * path is checked as it is used, stripped ({@code ".. "} is {@code ".."} once stripped).
   */
  public static void refuseParentSegments(String modelPath) throws ModelLookupException {
    for (String segment : SEGMENTS.split(modelPath.strip())) {
      if (segment.equals("..")) {
        throw new ModelLookupException("The model path " + modelPath + " has a '..' segment; refused, nothing copied");
      }
    }
  }

  /**
   * The model's key: its path relative to the storage directory and to the share's root. A
   * relative path is its own key; an absolute one under the storage directory or the share's
   * mount point is taken relative to it; any other absolute path (the share as another host
   * mounts it) is keyed by its file name.
   */
  public static Path key(String modelPath, Path storageRoot, Path shareMount) throws ModelLookupException {
    if (modelPath == null || modelPath.isBlank()) {
      throw new ModelLookupException("The command names no model_path");
    }
    refuseParentSegments(modelPath);
    Path path;
    try {
      path = Path.of(modelPath.strip()).normalize();
    } catch (InvalidPathException e) {
      throw new ModelLookupException("The model path " + modelPath + " is not a valid path: " + e.getMessage());
    }
    if (!path.isAbsolute()) {
      if (path.toString().isEmpty()) {
        throw new ModelLookupException("The model path " + modelPath + " names no model");
      }
      return path;
    }
    if (path.startsWith(storageRoot) && !path.equals(storageRoot)) {
      return storageRoot.relativize(path);
    }
    if (shareMount != null && path.startsWith(shareMount) && !path.equals(shareMount)) {
      return shareMount.relativize(path);
    }
    if (path.getFileName() == null) {
      throw new ModelLookupException("The model path " + modelPath + " names no model");
    }
    return path.getFileName();
  }
}
