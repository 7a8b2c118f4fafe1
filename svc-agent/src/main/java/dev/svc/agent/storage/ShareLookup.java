package dev.svc.agent.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/**
 * Finds a model on the share, confined to the mount root: the candidate, every glob result and
 * every file under a model directory (symlink targets included) must resolve, with
 * {@link Path#toRealPath}, inside the real mount root. A path with {@code ..} segments is refused
 * before anything is read. Blocking: call it from a worker.
 */
public final class ShareLookup {

  private static final String GLOB_CHARS = "*?[{";
  /**
   * Most '*' in one glob segment. The JDK matches a glob as a backtracking regex: each '*' multiplies
   * the work on a name that does not match, so 100 of them hung a lookup; three keep it to milliseconds
   * for the longest file name (255 bytes), and a model's glob needs one or two.
   */
  static final int MAX_STARS = 3;

  private final Path mountRoot;

  public ShareLookup(Path mountRoot) {
    this.mountRoot = mountRoot.toAbsolutePath().normalize();
  }

  /** A model found on the share: where it is (as named on the share) and its key (path relative to the root). */
  public record Found(Path path, Path relative) {
  }

  /**
   * The model at {@code key} (a path relative to the mount root; glob characters allowed in its
   * segments), checked whole for confinement.
   *
   * @throws ModelLookupException when it is missing, or anything it names lies outside the root
   */
  public Found find(Path key) throws ModelLookupException {
    return findIfPresent(key).orElseThrow(() ->
        new ModelLookupException("Model " + key + " not found on the share " + mountRoot));
  }

  /** As {@link #find}, empty when nothing is there; a confinement refusal still throws. */
  public Optional<Found> findIfPresent(Path key) throws ModelLookupException {
    ModelPaths.refuseParentSegments(key.toString());
    if (key.isAbsolute()) {
      throw new ModelLookupException("Share lookup takes a path relative to the mount root, not " + key);
    }
    Path realRoot = realRoot();
    List<Path> candidates = hasGlob(key) ? expand(key) : List.of(mountRoot.resolve(key));
    List<Path> existing = new ArrayList<>();
    for (Path candidate : candidates) {
      if (!Files.exists(candidate, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      requireInside(realRoot, candidate, hasGlob(key) ? "The glob " + key + " matches " + candidate : "The model " + candidate);
      existing.add(candidate);
    }
    if (existing.isEmpty()) {
      return Optional.empty();
    }
    Path chosen = existing.get(0);
    requireTreeInside(realRoot, chosen);
    return Optional.of(new Found(chosen, mountRoot.relativize(chosen)));
  }

  /** Every entry under a model directory resolves inside the root; a file is checked alone. */
  private static void requireTreeInside(Path realRoot, Path model) throws ModelLookupException {
    if (!Files.isDirectory(model)) {
      return;
    }
    Path realModel = real(model);
    try (Stream<Path> walk = Files.walk(realModel, FileVisitOption.FOLLOW_LINKS)) {
      for (Path entry : (Iterable<Path>) walk::iterator) {
        requireInside(realRoot, entry, "The model directory " + model + " holds " + entry + ", which");
      }
    } catch (IOException e) {
      throw new ModelLookupException("Cannot read the model directory " + model + ": " + e.getMessage(), e);
    }
  }

  /** Throws unless the path resolves inside the root (the check the copy repeats file by file). */
  static void requireInside(Path realRoot, Path candidate, String what) throws ModelLookupException {
    Path real;
    try {
      real = candidate.toRealPath();
    } catch (IOException e) {
      // a dangling symlink: nothing to read, and nothing to trust
      throw new ModelLookupException(what + " cannot be resolved (" + e.getMessage() + "); refused");
    }
    if (!real.startsWith(realRoot)) {
      throw new ModelLookupException(what + " resolves to " + real + ", outside the share mount root " + realRoot
          + "; refused, nothing copied");
    }
  }

  private Path realRoot() throws ModelLookupException {
    try {
      return mountRoot.toRealPath();
    } catch (IOException e) {
      throw new ModelLookupException("The model share mount root " + mountRoot + " cannot be read: " + e.getMessage(), e);
    }
  }

  private static Path real(Path path) throws ModelLookupException {
    try {
      return path.toRealPath();
    } catch (IOException e) {
      throw new ModelLookupException("Cannot resolve " + path + ": " + e.getMessage(), e);
    }
  }

  static boolean hasGlob(Path key) {
    String text = key.toString();
    return text.chars().anyMatch(c -> GLOB_CHARS.indexOf(c) >= 0);
  }

  /**
   * Expands the key one segment at a time, as a shell does: a segment with glob characters lists
   * the directories reached so far (through symlinked directories too, whose results are then
   * checked like any other). Results come back sorted, so the choice among several is stable.
   */
  private List<Path> expand(Path key) throws ModelLookupException {
    List<Path> reached = List.of(mountRoot);
    for (Path segment : key) {
      String name = segment.toString();
      List<Path> next = new ArrayList<>();
      if (!hasGlob(segment)) {
        reached.forEach(dir -> next.add(dir.resolve(name)));
      } else {
        if (name.chars().filter(c -> c == '*').count() > MAX_STARS) {
          throw new ModelLookupException("The model path " + key + " has a glob segment with more than " + MAX_STARS
              + " '*'; refused: " + name);
        }
        PathMatcher matcher;
        try {
          matcher = FileSystems.getDefault().getPathMatcher("glob:" + name);
        } catch (PatternSyntaxException e) {
          throw new ModelLookupException("The model path " + key + " has a segment that is not a valid glob ("
              + e.getDescription() + "): " + name);
        }
        for (Path dir : reached) {
          if (!Files.isDirectory(dir)) {
            continue;
          }
          try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
              if (matcher.matches(entry.getFileName())) {
                next.add(entry);
              }
            }
          } catch (IOException e) {
            throw new ModelLookupException("Cannot list " + dir + " on the share: " + e.getMessage(), e);
          }
        }
      }
      next.sort(Comparator.naturalOrder());
      reached = next;
    }
    return reached;
  }

}
