package dev.svc.server.cluster;

import dev.svc.core.Ids;
import dev.svc.server.TestServer;
import dev.svc.server.faults.PostgresDatabases;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Nodes of a real cluster on 127.0.0.1: Hazelcast configured by the shipped {@code conf/cluster.xml}
 * under a cluster name of their own (so no other test's nodes join), one new PostgreSQL database,
 * a home each. Closed in the reverse order of their start.
 */
final class TestCluster implements AutoCloseable {

  /** Short claims, so a takeover is seen within seconds. */
  static final long CLAIM_TTL_MS = 4_000;
  static final long CLAIM_RENEW_MS = 1_000;

  private final List<TestServer> nodes = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger homes = new java.util.concurrent.atomic.AtomicInteger();
  private final Path dir;
  private final String dbUrl;
  private final ClusterSettings settings;

  private TestCluster(Path dir, String dbUrl, ClusterSettings settings) {
    this.dir = dir;
    this.dbUrl = dbUrl;
    this.settings = settings;
  }

  /** A cluster of {@code count} nodes started one after the other, each with these options. */
  static TestCluster start(PostgresDatabases postgres, Path dir, int count, UnaryOperator<TestServer.Options> options)
      throws Exception {
    TestCluster cluster = new TestCluster(dir, postgres.newDatabase("cluster"),
        ClusterSettings.of(hazelcastConfig(dir), "127.0.0.1").withClaim(CLAIM_TTL_MS, CLAIM_RENEW_MS));
    try {
      for (int i = 0; i < count; i++) {
        cluster.add(options);
      }
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /** Starts one more node (from any thread: nodes may start together). */
  TestServer add(UnaryOperator<TestServer.Options> options) {
    TestServer node = TestServer.start(dir.resolve("node-" + homes.getAndIncrement()),
        options.apply(new TestServer.Options().dbUrl(dbUrl).cluster(settings)));
    nodes.add(node);
    return node;
  }

  /** The repository's conf/cluster.xml under a cluster name no other test uses. */
  static Path hazelcastConfig(Path dir) throws IOException {
    String shipped = Files.readString(Path.of("..", "conf", "cluster.xml"));
    String name = "svc-test-" + Ids.randomHex(6);
    if (!shipped.contains("<cluster-name>svc</cluster-name>")) {
      throw new IllegalStateException("conf/cluster.xml does not name its cluster 'svc'");
    }
    Path file = dir.resolve("cluster.xml");
    Files.writeString(file, shipped.replace("<cluster-name>svc</cluster-name>", "<cluster-name>" + name + "</cluster-name>"));
    return file;
  }

  TestServer node(int i) {
    return nodes.get(i);
  }

  List<TestServer> nodes() {
    return nodes;
  }

  String dbUrl() {
    return dbUrl;
  }

  /** Stops a node cleanly (it gives its claim up) and forgets it. */
  void stop(int i) {
    nodes.remove(i).close();
  }

  @Override
  public void close() {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      nodes.get(i).close();
    }
    nodes.clear();
  }
}
