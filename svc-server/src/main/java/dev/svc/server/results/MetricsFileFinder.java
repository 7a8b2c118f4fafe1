package dev.svc.server.results;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Walks one results root for metrics.json files without following directory links. */
final class MetricsFileFinder extends SimpleFileVisitor<Path> {

  static final String FILE_NAME = "metrics.json";
  static final int MAX_DEPTH = 10;
  private static final Set<String> SKIPPED_DIRECTORIES = Set.of("node_modules", "target", ".git");

  private final Path root;
  private final List<Path> found = new ArrayList<>();
  private final List<String> problems;

  private MetricsFileFinder(Path root, List<String> problems) {
    this.root = root;
    this.problems = problems;
  }

  /**
   * The real paths of the metrics.json files under {@code root}, which must be a real path;
   * unreadable directories are added to {@code problems}.
   */
  static List<Path> find(Path root, List<String> problems) throws IOException {
    MetricsFileFinder finder = new MetricsFileFinder(root, problems);
    Files.walkFileTree(root, EnumSet.noneOf(FileVisitOption.class), MAX_DEPTH, finder);
    return finder.found;
  }

  @Override
  public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
    if (dir.equals(root)) {
      return FileVisitResult.CONTINUE;
    }
    String name = String.valueOf(dir.getFileName());
    boolean skipped = name.startsWith(".") || SKIPPED_DIRECTORIES.contains(name);
    return skipped ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
  }

  /**
   * A plain file under a real root is already its real path (directory links are not followed); a
   * link to a file is resolved. The walk's own attributes answer for the plain ones: with
   * thousands of results, a second look at each was most of the walk.
   */
  @Override
  public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
    if (!FILE_NAME.equals(String.valueOf(file.getFileName()))) {
      return FileVisitResult.CONTINUE;
    }
    if (attrs.isRegularFile()) {
      found.add(file);
    } else if (attrs.isSymbolicLink() && Files.isRegularFile(file)) {
      try {
        found.add(file.toRealPath());
      } catch (IOException e) {
        problems.add(file + ": could not be read (" + e.getClass().getSimpleName() + ").");
      }
    }
    return FileVisitResult.CONTINUE;
  }

  @Override
  public FileVisitResult visitFileFailed(Path file, IOException e) {
    problems.add(file + ": could not be read (" + e.getClass().getSimpleName() + ").");
    return FileVisitResult.CONTINUE;
  }
}
