package dev.svc.it;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Nodes of a real cluster as the README runs them: each a {@code svc web --cluster} JVM
 * ({@link ServerProcess}) on 127.0.0.1 and a port of its own, all on one PostgreSQL database, with
 * the repository's {@code conf/cluster.xml} under a cluster name of their own (so that no other
 * test's nodes join), one home (CA, certificate, session key) and one global token. The first node
 * creates the home; the others start together after it.
 */
final class ClusterProcesses implements AutoCloseable {

  private final Path dir;
  private final Path home;
  private final Path tokenFile;
  private final String token;
  private final String dbUrl;
  private final List<String> nodeArgs;
  private final List<ServerProcess> nodes = new CopyOnWriteArrayList<>();

  private ClusterProcesses(Path dir, String token, String dbUrl, Path hazelcastConfig) throws IOException {
    this.dir = dir;
    this.home = dir.resolve("home");
    this.tokenFile = dir.resolve("token");
    this.token = token;
    this.dbUrl = dbUrl;
    this.nodeArgs = List.of("--cluster", "--cluster-config", hazelcastConfig.toString(), "--cluster-host", "127.0.0.1",
        "--db-url", dbUrl);
    Files.writeString(tokenFile, token + "\n");
    // owner-only, as the README asks of a token file (the nodes warn otherwise)
    Files.setPosixFilePermissions(tokenFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
  }

  /** Starts {@code count} nodes on the (empty) database at {@code dbUrl}; returns once each answers. */
  static ClusterProcesses start(String dbUrl, int count) {
    try {
      Path dir = Files.createTempDirectory("svc-it-cluster-");
      ClusterProcesses cluster = new ClusterProcesses(dir, ServerProcess.newToken(), dbUrl, hazelcastConfig(dir));
      try {
        cluster.nodes.add(cluster.newNode(1));
        List<CompletableFuture<ServerProcess>> others = new ArrayList<>();
        for (int i = 2; i <= count; i++) {
          int n = i;
          others.add(CompletableFuture.supplyAsync(() -> cluster.newNode(n)));
        }
        for (CompletableFuture<ServerProcess> other : others) {
          cluster.nodes.add(other.join());
        }
      } catch (RuntimeException e) {
        cluster.close();
        throw e;
      }
      return cluster;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The repository's conf/cluster.xml under a cluster name no other test uses. */
  private static Path hazelcastConfig(Path dir) throws IOException {
    String shipped = Files.readString(Processes.repositoryRoot().resolve("conf/cluster.xml"));
    if (!shipped.contains("<cluster-name>svc</cluster-name>")) {
      throw new IllegalStateException("conf/cluster.xml does not name its cluster 'svc'");
    }
    String name = "svc-it-" + HexFormat.of().formatHex(java.security.SecureRandom.getSeed(6));
    return Files.writeString(dir.resolve("cluster.xml"),
        shipped.replace("<cluster-name>svc</cluster-name>", "<cluster-name>" + name + "</cluster-name>"));
  }

  private ServerProcess newNode(int n) {
    return ServerProcess.node(dir.resolve("node-" + n), home, tokenFile, token, nodeArgs);
  }

  /** Node {@code n}, counted from 1 as the README does. */
  ServerProcess node(int n) {
    return nodes.get(n - 1);
  }

  List<ServerProcess> nodes() {
    return List.copyOf(nodes);
  }

  /** The numbers (from 1) of the nodes whose process is alive. */
  List<Integer> alive() {
    List<Integer> out = new ArrayList<>();
    for (int n = 1; n <= nodes.size(); n++) {
      if (node(n).isAlive()) {
        out.add(n);
      }
    }
    return out;
  }

  String token() {
    return token;
  }

  Path tokenFile() {
    return tokenFile;
  }

  /** The CA every node serves with and signs agents' certificates with. */
  Path caPem() {
    return home.resolve("certs/ca.pem");
  }

  Path certs() {
    return home.resolve("certs");
  }

  String dbUrl() {
    return dbUrl;
  }

  /** The {@code cluster} part of node {@code n}'s {@code GET /api/v1/health}; empty when it does not answer 200. */
  Optional<JsonObject> health(int n) {
    try {
      Http.Response response = node(n).api().get("/api/v1/health");
      return response.status() == 200 ? Optional.ofNullable(response.json().getJsonObject("cluster")) : Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The node that says it runs the singletons (its health names itself as their holder), if one does. */
  Optional<Integer> holder() {
    for (int n : alive()) {
      Optional<JsonObject> health = health(n);
      if (health.isPresent() && health.get().getString("node").equals(health.get().getString("singletons"))) {
        return Optional.of(n);
      }
    }
    return Optional.empty();
  }

  /**
   * Whether every live node lists exactly the live nodes as members and names the same one of them
   * as the singletons' holder, which says so itself.
   */
  boolean agreed() {
    List<Integer> alive = alive();
    Optional<Integer> holder = holder();
    if (holder.isEmpty()) {
      return false;
    }
    String holderId = health(holder.get()).map(h -> h.getString("node")).orElse(null);
    for (int n : alive) {
      Optional<JsonObject> health = health(n);
      if (health.isEmpty() || health.get().getJsonArray("members").size() != alive.size()
          || !health.get().getString("singletons", "").equals(holderId)) {
        return false;
      }
    }
    return true;
  }

  /** The sum of a series of node {@code n}'s {@code GET /metrics} (all its label sets); -1 when it does not answer. */
  double metric(int n, String name) {
    Http.Response response;
    try {
      response = node(n).api().get("/metrics");
    } catch (RuntimeException e) {
      return -1;
    }
    if (response.status() != 200) {
      return -1;
    }
    double sum = 0;
    for (String line : response.body().split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** A JDBC connection to the nodes' database, for checking what they stored. */
  Connection database() throws SQLException {
    return DriverManager.getConnection(dbUrl);
  }

  /** Copies every node's console log to {@code target} (the nodes' own folders go with them). */
  void keepLogs(Path target) {
    try {
      Files.createDirectories(target);
      for (int n = 1; n <= nodes.size(); n++) {
        if (Files.isRegularFile(node(n).log())) {
          Files.copy(node(n).log(), target.resolve("node-" + n + ".log"), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      System.err.println("The nodes' logs were not kept: " + e);
    }
  }

  /** Stops the nodes together (each gives its claim up cleanly) and deletes their folders and the home. */
  @Override
  public void close() {
    List<CompletableFuture<Void>> stops = new ArrayList<>();
    for (ServerProcess node : nodes) {
      stops.add(CompletableFuture.runAsync(node::close));
    }
    stops.forEach(CompletableFuture::join);
    Processes.deleteTree(dir);
  }
}
