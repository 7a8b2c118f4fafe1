package dev.svc.it;

import dev.svc.core.tls.Fingerprint;
import dev.svc.core.tls.Pem;
import dev.svc.engines.lifecycle.LoopbackPort;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A real {@code svc web} in its own JVM, as a user runs it: HTTPS with the generated CA and a
 * global token (from a file), on 127.0.0.1 and a free port, with a temporary HOME. It can be
 * killed with SIGKILL and started again on the same port and home.
 */
public final class ServerProcess implements AutoCloseable {

  /** The module access Hazelcast asks for on Java 17, as bin/svc gives a cluster node. */
  private static final List<String> HAZELCAST_JVM_OPTIONS = List.of("--add-modules", "java.se",
      "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
      "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.management/sun.management=ALL-UNNAMED",
      "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

  private final Path dir;
  private final Path home;
  private final Path tokenFile;
  private final String token;
  private final int port;
  private final List<String> extraArgs;
  private Process process;

  private ServerProcess(Path dir, List<String> extraArgs) throws IOException {
    this(dir, dir.resolve(".svc"), dir.resolve("server-token"), newToken(), extraArgs);
    Files.writeString(tokenFile, token + "\n");
  }

  private ServerProcess(Path dir, Path home, Path tokenFile, String token, List<String> extraArgs) {
    this.dir = dir;
    this.home = home;
    this.tokenFile = tokenFile;
    this.token = token;
    this.port = LoopbackPort.free();
    this.extraArgs = extraArgs;
  }

  /** A new global token (32 hex chars), as an operator would write to the token file. */
  public static String newToken() {
    return HexFormat.of().formatHex(java.security.SecureRandom.getSeed(16));
  }

  /** Starts a server in a new temporary directory (its HOME) and waits until it answers. */
  public static ServerProcess start(String... extraArgs) {
    try {
      ServerProcess server = new ServerProcess(Files.createTempDirectory("svc-it-server-"), List.of(extraArgs));
      server.launch();
      return server;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * A node of a cluster ({@code extraArgs} carry {@code --cluster} and its settings) in {@code dir}
   * (its HOME, log and results), sharing {@code home} and the global token with the other nodes, as
   * the README's nodes do; waits until it answers. Closing it leaves the shared home alone.
   */
  public static ServerProcess node(Path dir, Path home, Path tokenFile, String token, List<String> extraArgs) {
    try {
      Files.createDirectories(dir);
      ServerProcess node = new ServerProcess(dir, home, tokenFile, token, List.copyOf(extraArgs));
      node.launch();
      return node;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void launch() throws IOException {
    List<String> args = new ArrayList<>(List.of("web", "--home", home.toString(), "--host", "127.0.0.1",
        "--port", String.valueOf(port), "--auth-token-file", tokenFile.toString(),
        "--results-dir", dir.resolve("results").toString()));
    args.addAll(extraArgs);
    Files.createDirectories(dir.resolve("results"));
    Path log = dir.resolve("server.log");
    process = Processes.java(dir, extraArgs.contains("--cluster") ? HAZELCAST_JVM_OPTIONS : List.of(),
        "dev.svc.server.cli.SvcCommand", args)
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    Http[] probe = {null};
    Processes.await("the server to answer on " + url(), Duration.ofSeconds(90), () -> {
      if (!process.isAlive()) {
        throw new AssertionError("The server exited with " + process.exitValue() + ":\n" + logTail());
      }
      if (probe[0] == null && Files.isRegularFile(caPem())) {
        probe[0] = new Http(url(), null, caPem());
      }
      return probe[0] != null && healthy(probe[0]);
    });
  }

  private static boolean healthy(Http probe) {
    try {
      return probe.get("/api/v1/health").status() == 200;
    } catch (RuntimeException e) {
      return false;
    }
  }

  public URI url() {
    return URI.create("https://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  public String token() {
    return token;
  }

  public Path home() {
    return home;
  }

  public Path caPem() {
    return home.resolve("certs/ca.pem");
  }

  /** The CA's SHA-256 fingerprint, as {@code svc web} prints it at first launch. */
  public String caFingerprint() {
    return Fingerprint.sha256(Pem.readCertificate(caPem()));
  }

  /** A client with the global token that trusts the server's CA. */
  public Http api() {
    return new Http(url(), token, caPem());
  }

  /** A client that trusts the server's CA and sends {@code agentToken}. */
  public Http as(String agentToken) {
    return new Http(url(), agentToken, caPem());
  }

  /** Provisions an agent on the server (POST /api/v1/agents): its id and the token issued for it. */
  public Provisioned provision(String name) {
    Http.Response response = api().post("/api/v1/agents", new io.vertx.core.json.JsonObject().put("name", name));
    if (response.status() != 201) {
      throw new AssertionError("Provisioning " + name + ": " + response);
    }
    return new Provisioned(response.json().getString("agent_id"), name, response.json().getString("token"));
  }

  /** An agent the server issued a token for. */
  public record Provisioned(String id, String name, String token) {
  }

  /** SIGKILL: no shutdown hook runs, as when the machine loses power. */
  public void kill9() {
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts it again on the same port and home (after {@link #kill9()} or {@link #stop()}). */
  public void restart() {
    try {
      launch();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A JDBC connection to its SQLite database, as another process reads it (WAL: alongside the server). */
  public java.sql.Connection database() throws java.sql.SQLException {
    java.sql.Connection connection = java.sql.DriverManager.getConnection("jdbc:sqlite:" + home.resolve("svc.db"));
    try (java.sql.Statement statement = connection.createStatement()) {
      statement.execute("PRAGMA busy_timeout = 10000");
    }
    return connection;
  }

  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** SIGTERM and wait. */
  public void stop() {
    Processes.stop(process, Duration.ofSeconds(20));
  }

  /** Its console output (stdout and stderr, every start appended). */
  public Path log() {
    return dir.resolve("server.log");
  }

  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(log());
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    stop();
    Processes.deleteTree(dir);
  }
}
