package dev.svc.agent.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The local model storage ({@code model_storage_dir}): the copies benchmarks run against. A copy
 * is made in a {@code .partial-*} directory and renamed into place when complete, so a crash never
 * leaves a half model that looks whole (leftover partials are removed at the next start).
 * Blocking: call it from a worker.
 */
public final class ModelStorage {

  static final String PARTIAL_PREFIX = ".partial-";
  private static final int BUFFER = 1 << 20;

  private final Path root;

  public ModelStorage(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  public Path root() {
    return root;
  }

  /** Creates the directory and removes copies a crash left half-made. */
  public void open(Consumer<String> log) throws IOException {
    Files.createDirectories(root);
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(root, PARTIAL_PREFIX + "*")) {
      for (Path partial : entries) {
        log.accept("Model storage: removing the unfinished copy " + partial);
        deleteTree(partial);
      }
    }
  }

  /** The model already in storage under its key (step 1 of the workflow), confined to the storage directory. */
  public Optional<ShareLookup.Found> find(Path key) throws ModelLookupException {
    if (!Files.isDirectory(root)) {
      return Optional.empty();
    }
    return new ShareLookup(root).findIfPresent(key);
  }

  /**
   * Copies a model found on the share into storage under its key, with progress lines; every
   * file is checked again to resolve inside {@code shareRoot} as it is copied.
   *
   * @return the local copy
   */
  public Path copyIn(ShareLookup.Found source, Path shareRoot, Consumer<String> log) throws ModelLookupException {
    Path target = root.resolve(source.relative()).normalize();
    if (!target.startsWith(root) || target.equals(root)) {
      throw new ModelLookupException("The model " + source.relative() + " would land outside " + root + "; refused");
    }
    Path partial = root.resolve(PARTIAL_PREFIX + UUID.randomUUID());
    try {
      Path realShare = shareRoot.toRealPath();
      Path realSource = source.path().toRealPath();
      List<Path> files = new ArrayList<>();
      long total = 0;
      if (Files.isDirectory(realSource)) {
        try (Stream<Path> walk = Files.walk(realSource, FileVisitOption.FOLLOW_LINKS)) {
          for (Path entry : (Iterable<Path>) walk::iterator) {
            if (Files.isRegularFile(entry)) {
              files.add(entry);
              total += Files.size(entry);
            }
          }
        }
      } else {
        files.add(realSource);
        total = Files.size(realSource);
      }
      log.accept("Copying model " + source.path() + " to " + target + " (" + files.size() + " file"
          + (files.size() == 1 ? "" : "s") + ", " + megabytes(total) + ")");
      Files.createDirectories(partial);
      Path staged = partial.resolve(target.getFileName().toString());
      Progress progress = new Progress(total, log);
      for (Path file : files) {
        ShareLookup.requireInside(realShare, file, "The model file " + file);
        Path destination = Files.isDirectory(realSource) ? staged.resolve(realSource.relativize(file).toString()) : staged;
        Files.createDirectories(destination.getParent());
        copyFile(file, destination, progress);
      }
      if (files.isEmpty()) {
        Files.createDirectories(staged);
      }
      Files.createDirectories(target.getParent());
      Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE);
      log.accept("Copied model to " + target + " (" + megabytes(total) + ")");
      return target;
    } catch (IOException e) {
      throw new ModelLookupException("Copying the model " + source.path() + " failed: " + e.getMessage(), e);
    } finally {
      try {
        deleteTree(partial);
      } catch (IOException ignored) {
        // removed at the next start
      }
    }
  }

  /** Deletes a model copy, then the directories above it that it leaves empty (up to the storage root). */
  public void delete(Path local) throws IOException {
    Path path = local.toAbsolutePath().normalize();
    if (!path.startsWith(root) || path.equals(root)) {
      throw new IOException(path + " is not a model in " + root);
    }
    deleteTree(path);
    for (Path parent = path.getParent(); parent != null && !parent.equals(root) && parent.startsWith(root);
        parent = parent.getParent()) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent)) {
        if (entries.iterator().hasNext()) {
          break;
        }
      }
      Files.delete(parent);
    }
  }

  /** The cached models: the storage directory's entries, partial copies aside. */
  public List<Path> models() throws IOException {
    List<Path> models = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return models;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
      for (Path entry : entries) {
        if (!entry.getFileName().toString().startsWith(PARTIAL_PREFIX)) {
          models.add(entry);
        }
      }
    }
    models.sort(Comparator.naturalOrder());
    return models;
  }

  /**
   * The storage entry a cleanup names: a path (absolute, or relative to the storage directory)
   * that resolves inside the storage directory and is not the directory itself.
   */
  public Path confined(String modelPath) throws ModelLookupException {
    ModelPaths.refuseParentSegments(modelPath);
    Path path;
    try {
      path = root.resolve(modelPath.strip()).normalize();
    } catch (InvalidPathException e) {
      throw new ModelLookupException("The model path " + modelPath + " is not a valid path: " + e.getMessage());
    }
    if (!path.startsWith(root) || path.equals(root)) {
      throw new ModelLookupException(modelPath + " is not inside the model storage " + root + "; refused");
    }
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      throw new ModelLookupException(modelPath + " is not in the model storage " + root);
    }
    try {
      // a symlink in storage is deleted itself, never followed: its parent must resolve inside
      Path realParent = path.getParent().toRealPath();
      if (!realParent.startsWith(root.toRealPath())) {
        throw new ModelLookupException(modelPath + " resolves outside the model storage " + root + "; refused");
      }
    } catch (IOException e) {
      throw new ModelLookupException("Cannot resolve " + modelPath + ": " + e.getMessage(), e);
    }
    return path;
  }

  /** Free space of the storage's file system, in bytes (0 when unknown). */
  public long freeBytes() {
    try {
      Path existing = root;
      while (existing != null && !Files.exists(existing)) {
        existing = existing.getParent();
      }
      return existing == null ? 0 : Files.getFileStore(existing).getUsableSpace();
    } catch (IOException e) {
      return 0;
    }
  }

  /** Deletes a file, a symlink (not its target) or a directory tree. */
  static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      try (Stream<Path> walk = Files.walk(path)) {
        for (Path entry : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(entry);
        }
      }
    } else {
      Files.delete(path);
    }
  }

  private static void copyFile(Path from, Path to, Progress progress) throws IOException {
    byte[] buffer = new byte[BUFFER];
    try (InputStream in = Files.newInputStream(from); OutputStream out = Files.newOutputStream(to)) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        out.write(buffer, 0, read);
        progress.add(read);
      }
    }
  }

  static String megabytes(long bytes) {
    return String.format(java.util.Locale.ROOT, "%.1f MB", bytes / 1e6);
  }

  /** Logs every tenth of the way. */
  private static final class Progress {
    private final long total;
    private final Consumer<String> log;
    private long done;
    private int lastTenth;

    Progress(long total, Consumer<String> log) {
      this.total = total;
      this.log = log;
    }

    void add(long bytes) {
      done += bytes;
      int tenth = total == 0 ? 10 : (int) (done * 10 / total);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        log.accept("Copying model: " + tenth * 10 + "% (" + megabytes(done) + " of " + megabytes(total) + ")");
      }
    }
  }
}
