package dev.svc.core.home;

import java.nio.file.Path;

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

  public Path enginesOverride() {
    return root.resolve("engines.yaml");
  }
}
