package dev.svc.core.home;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The layout of the svc home directory ({@code ~/.svc} by default). */
public final class SvcHome {

  private final Path root;

  public SvcHome(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  public static SvcHome defaultHome() {
    return new SvcHome(userHome().resolve(".svc"));
  }

  /** The user's home: $HOME when set (Java's user.home ignores it), else user.home. */
  public static Path userHome() {
    String env = System.getenv("HOME");
    return Path.of(env != null && !env.isBlank() ? env : System.getProperty("user.home"));
  }

  /** Expands a leading {@code ~} to the user's home directory. */
  public static Path expand(String path) {
    if (path.equals("~")) {
      return userHome();
    }
    if (path.startsWith("~/")) {
      return userHome().resolve(path.substring(2));
    }
    return Path.of(path);
  }

  public Path root() {
    return root;
  }

  public Path database() {
    return root.resolve("svc.db");
  }

  public Path certs() {
    return root.resolve("certs");
  }

  public Path agentConfig() {
    return root.resolve("agent.yaml");
  }

  public Path agentPid() {
    return root.resolve("agent.pid");
  }

  public Path logs() {
    return root.resolve("logs");
  }

  public Path models() {
    return root.resolve("models");
  }

  public Path results() {
    return root.resolve("results");
  }

  public Path datasets() {
    return root.resolve("datasets");
  }

  /** What svc keeps to save work, and may lose: e.g. the digests of model files. */
  public Path cache() {
    return root.resolve("cache");
  }

  public Path enginesOverride() {
    return root.resolve("engines.yaml");
  }

  /** Secrets that must not travel with a backup of the database: the session key. */
  public Path secrets() {
    return root.resolve("secrets");
  }

  /** The key that signs browser sessions and CSRF tokens (hex), created on the server's first start. */
  public Path sessionKey() {
    return secrets().resolve("session.key");
  }

  /**
   * Makes the home owner-only (0700) and everything secret in it too, creating the home and
   * {@code secrets/} when missing: the database and its WAL, SHM and journal files, private keys
   * under {@code certs/} (and the directories holding them), {@code secrets/}, the agent's
   * {@code agent.yaml} (it holds the agent's token). What was too open is tightened with a
   * warning that names it; what cannot be tightened stops the start.
   */
  public void securePrivateFiles() {
    PrivateFiles.directory(root);
    PrivateFiles.directory(secrets());
    Path db = database();
    for (Path file : List.of(db, db.resolveSibling("svc.db-wal"), db.resolveSibling("svc.db-shm"),
        db.resolveSibling("svc.db-journal"), agentConfig())) {
      PrivateFiles.tighten(file);
    }
    tightenTree(secrets(), path -> true);
    if (Files.isDirectory(certs())) {
      PrivateFiles.tighten(certs());
      tightenTree(certs(), path -> Files.isDirectory(path) || path.getFileName().toString().contains("key"));
    }
  }

  private static void tightenTree(Path dir, java.util.function.Predicate<Path> secret) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.filter(p -> !p.equals(dir)).filter(secret).forEach(PrivateFiles::tighten);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not check the permissions under " + dir, e);
    }
  }
}
