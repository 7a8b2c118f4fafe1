package dev.svc.agent.ops;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The installed agent: {@code <install>/versions/<version>/} holds each unpacked package and
 * {@code <install>/current} is a relative symbolic link to the one in use. A new package is
 * extracted and checked beside the others, and only then does {@code current} move, by renaming a
 * new link over it (atomic): a failure at any earlier step leaves the old version in use and its
 * files untouched. Blocking: file work on the caller's thread.
 */
public final class PackageInstall {

  /** How many unpacked versions stay (the one in use and the ones before it, for going back by hand). */
  static final int KEEP_VERSIONS = 3;

  /** The result: the version now in use, the one before (if any), and whether nothing had to change. */
  public record Installed(Path version, Optional<Path> previous, boolean unchanged) {
  }

  private final Path installDir;

  public PackageInstall(Path installDir) {
    this.installDir = installDir.toAbsolutePath().normalize();
  }

  public Path installDir() {
    return installDir;
  }

  public Path versions() {
    return installDir.resolve("versions");
  }

  /** The {@code current} link. */
  public Path current() {
    return installDir.resolve("current");
  }

  /** The directory {@code current} points to, when there is one. */
  public Optional<Path> currentVersion() throws IOException {
    Path link = current();
    if (!Files.isSymbolicLink(link)) {
      return Optional.empty();
    }
    return Optional.of(installDir.resolve(Files.readSymbolicLink(link)).normalize());
  }

  /** The launcher of the version in use. */
  public Path launcher() {
    return current().resolve("bin/svc-agent");
  }

  /**
   * Unpacks the verified package {@code archive} (its SHA-256 names the version directory), checks it
   * and makes it current.
   */
  public Installed install(Path archive, String sha256) throws IOException {
    if (Files.exists(current(), LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(current())) {
      throw new IOException(current() + " exists and is not a symbolic link; move it away to install here");
    }
    Optional<Path> before = currentVersion();
    Files.createDirectories(versions());
    Path staging = Files.createTempDirectory(versions(), ".incoming-");
    Path target = null;
    boolean switched = false;
    try {
      TarExtractor.extract(archive, staging);
      Path unpacked = singleTopDirectory(staging);
      check(unpacked);
      String base = unpacked.getFileName() + "-" + sha256.substring(0, Math.min(12, sha256.length()));
      if (before.isPresent() && before.get().getFileName().toString().equals(base)) {
        // the same package is already in use: leave everything as it is
        return new Installed(before.get(), before, true);
      }
      target = versions().resolve(base);
      for (int n = 2; Files.exists(target, LinkOption.NOFOLLOW_LINKS); n++) {
        target = versions().resolve(base + "-" + n);
      }
      Files.move(unpacked, target, StandardCopyOption.ATOMIC_MOVE);
      switchTo(target);
      switched = true;
    } finally {
      deleteTree(staging);
      if (!switched && target != null) {
        deleteTree(target);
      }
    }
    prune(target, before.orElse(null));
    return new Installed(target, before, false);
  }

  /** Points {@code current} at {@code version}: a new link renamed over the old one, so no reader sees neither. */
  void switchTo(Path version) throws IOException {
    Path link = installDir.resolve(".current-" + UUID.randomUUID());
    Files.createSymbolicLink(link, installDir.relativize(version));
    try {
      Files.move(link, current(), StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(link);
    }
  }

  /** A package is {@code svc-agent-<version>/} with a runnable jar, the libraries it names and an executable launcher. */
  static void check(Path unpacked) throws IOException {
    Path jar = unpacked.resolve("svc-agent.jar");
    if (!Files.isRegularFile(jar, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("The package has no svc-agent.jar");
    }
    Manifest manifest;
    try (JarFile file = new JarFile(jar.toFile())) {
      manifest = file.getManifest();
    } catch (IOException e) {
      throw new IOException("The package's svc-agent.jar is not a readable jar: " + e.getMessage());
    }
    if (manifest == null || manifest.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS) == null) {
      throw new IOException("The package's svc-agent.jar names no Main-Class");
    }
    String classPath = manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
    if (classPath != null) {
      for (String entry : classPath.trim().split("\\s+")) {
        if (!entry.isEmpty() && !Files.isRegularFile(unpacked.resolve(entry).normalize())) {
          throw new IOException("The package lacks " + entry + ", which svc-agent.jar needs");
        }
      }
    }
    Path launcher = unpacked.resolve("bin/svc-agent");
    if (!Files.isRegularFile(launcher, LinkOption.NOFOLLOW_LINKS) || !Files.isExecutable(launcher)) {
      throw new IOException("The package has no executable bin/svc-agent");
    }
  }

  private static Path singleTopDirectory(Path staging) throws IOException {
    List<Path> top = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(staging)) {
      entries.forEach(top::add);
    }
    if (top.size() != 1 || !Files.isDirectory(top.get(0), LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("The package must hold exactly one top directory (svc-agent-<version>/), not " + top.size()
          + " entries");
    }
    return top.get(0);
  }

  /** Drops the oldest versions beyond {@link #KEEP_VERSIONS}, never the one in use or the one before it. */
  private void prune(Path now, Path previous) {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(versions())) {
      List<Path> old = new ArrayList<>();
      for (Path p : entries) {
        if (!p.getFileName().toString().startsWith(".") && !p.equals(now) && !p.equals(previous)) {
          old.add(p);
        }
      }
      old.sort(Comparator.comparing(PackageInstall::modified).reversed());
      for (int i = Math.max(0, KEEP_VERSIONS - 2); i < old.size(); i++) {
        deleteTree(old.get(i));
      }
    } catch (IOException e) {
      // pruning is housekeeping: the new version is installed either way
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
        Files.delete(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
