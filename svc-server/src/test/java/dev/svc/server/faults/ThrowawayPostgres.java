package dev.svc.server.faults;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of the test's own: made with initdb in a temporary folder, served on 127.0.0.1
 * and a free port (and a socket in that folder), stopped like a crash ({@code pg_ctl stop -m immediate}:
 * every backend quits at once, the next start recovers from the WAL) and started again on the same
 * port. PostgreSQL refuses to run as root, so as root it runs as the {@code postgres} user (Debian's
 * {@code postgresql} package makes it). The binaries are Debian's, under /usr/lib/postgresql.
 */
public final class ThrowawayPostgres implements AutoCloseable {

  public static final String USER = "svc";

  private final Path bin;
  private final Path dir;
  private final int port;

  private ThrowawayPostgres(Path bin, Path dir, int port) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
  }

  /** initdb and start; fails with what to install when PostgreSQL is missing. */
  public static ThrowawayPostgres start() throws Exception {
    Path bin = binaries();
    Path dir = Files.createTempDirectory("svc-pg-");
    ThrowawayPostgres pg = new ThrowawayPostgres(bin, dir, freePort());
    try {
      if (isRoot()) {
        run(List.of("chown", "postgres:postgres", dir.toString()), 30);
      }
      pg.asOwner(List.of(bin.resolve("initdb").toString(), "-D", pg.data().toString(), "-U", USER, "--auth=trust",
          "-E", "UTF8", "--no-sync"), 120);
      pg.startAgain();
      return pg;
    } catch (Exception e) {
      pg.close();
      throw e;
    }
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=" + USER;
  }

  /** A new, empty database in this cluster: one per test, so that tests sharing a cluster share nothing else. */
  public String newDatabase(String name) throws java.sql.SQLException {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl());
         java.sql.Statement st = c.createStatement()) {
      st.executeUpdate("CREATE DATABASE " + name);
    }
    return jdbcUrl().replace("/postgres?", "/" + name + "?");
  }

  /** Starts the cluster and waits until it takes connections (pg_ctl -w). */
  void startAgain() throws Exception {
    asOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-l", dir.resolve("log").toString(),
        "-w", "-t", "60", "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off", "start"), 90);
  }

  /** Stops it like a crash: SIGQUIT to the postmaster, every backend gone at once, no checkpoint. */
  void crash() throws Exception {
    asOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data().toString(), "-m", "immediate", "-w", "stop"), 60);
  }

  @Override
  public void close() throws Exception {
    try {
      if (Files.exists(data().resolve("postmaster.pid"))) {
        crash();
      }
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private Path data() {
    return dir.resolve("data");
  }

  private void asOwner(List<String> command, long timeoutS) throws Exception {
    List<String> full = new ArrayList<>();
    if (isRoot()) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    run(full, timeoutS);
  }

  private static String run(List<String> command, long timeoutS) throws Exception {
    File out = File.createTempFile("svc-pg-cmd-", ".log");
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out).start();
      if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(command + " did not finish within " + timeoutS + " s");
      }
      String text = Files.readString(out.toPath(), StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IllegalStateException(command + " exited " + p.exitValue() + ": " + text);
      }
      return text;
    } finally {
      Files.deleteIfExists(out.toPath());
    }
  }

  private static Path binaries() throws IOException {
    Path root = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(root)) {
      try (Stream<Path> versions = Files.list(root)) {
        Path bin = versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_ctl")))
            .max(Comparator.comparing(b -> versionOf(b.getParent()))).orElse(null);
        if (bin != null) {
          return bin;
        }
      }
    }
    throw new IllegalStateException("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl):"
        + " install Debian's postgresql package (scripts/test does)");
  }

  private static int versionOf(Path dir) {
    String name = dir.getFileName().toString();
    return name.matches("\\d+") ? Integer.parseInt(name) : 0;
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
