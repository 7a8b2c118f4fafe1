package dev.svc.engines.lifecycle;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds a native engine's executable as engines.yaml names it: a bare name on {@code PATH}, a
 * path (anything with a {@code /}) as written, {@code ~/} meaning the user's home. It only looks;
 * it never starts the binary.
 */
public final class BinaryLookup {

  private final String path;
  private final Path home;

  BinaryLookup(String path, Path home) {
    this.path = path == null ? "" : path;
    this.home = home;
  }

  /** The lookup of this process: its {@code PATH} and {@code user.home}. */
  public static BinaryLookup system() {
    return new BinaryLookup(System.getenv("PATH"), Path.of(System.getProperty("user.home")));
  }

  /**
   * The executable, absolute.
   *
   * @throws EngineLifecycleException (stage create) saying what is missing and where to set it
   */
  Path locate(String engine, String binary) {
    String where = "engines." + engine + ".native.binary in engines.yaml (~/.svc/engines.yaml overrides it)";
    if (!binary.contains("/")) {
      return onPath(binary).orElseThrow(() -> missing(engine + " cannot run natively: " + binary
          + " is not on the PATH (" + (path.isEmpty() ? "empty" : path) + "). Install it, or give its path as " + where
          + "."));
    }
    Path file;
    try {
      file = asPath(binary);
    } catch (InvalidPathException e) {
      throw missing(engine + " cannot run natively: " + binary + " is not a valid path (" + where + ").");
    }
    if (!Files.exists(file)) {
      throw missing(engine + " cannot run natively: " + file + " does not exist (" + where + ").");
    }
    if (!isExecutable(file)) {
      throw missing(engine + " cannot run natively: " + file + " is not an executable file (" + where + ").");
    }
    return file;
  }

  /** The executable, absolute, or empty when no {@code PATH} directory holds it or its path is no executable file. */
  public Optional<Path> find(String binary) {
    if (!binary.contains("/")) {
      return onPath(binary);
    }
    try {
      Path file = asPath(binary);
      return isExecutable(file) ? Optional.of(file) : Optional.empty();
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
  }

  private Path asPath(String binary) {
    return (binary.startsWith("~/") ? home.resolve(binary.substring(2)) : Path.of(binary)).toAbsolutePath().normalize();
  }

  private Optional<Path> onPath(String name) {
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      try {
        Path candidate = Path.of(dir).resolve(name).toAbsolutePath().normalize();
        if (isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      } catch (InvalidPathException e) {
        // a PATH entry that is no path cannot hold the binary
      }
    }
    return Optional.empty();
  }

  private static boolean isExecutable(Path file) {
    return Files.isRegularFile(file) && Files.isExecutable(file);
  }

  private static EngineLifecycleException missing(String message) {
    return new EngineLifecycleException(LifecycleStage.CREATE, message, null);
  }
}
