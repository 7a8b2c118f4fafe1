package dev.svc.perf.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Heartbeat throughput and latency of one cluster node against several, in the same run: first one
 * {@code svc web --cluster} node, then {@code --nodes} nodes, each time on a new database of the
 * same PostgreSQL and under the same closed loop (kept-alive plain-HTTP connections, spread evenly
 * over the nodes as a round-robin load balancer would). The nodes' CPU is counted together. Prints
 * figures; asserts nothing. Run by {@code scripts/bench-server cluster}, which provides PostgreSQL
 * and the Hazelcast configuration: [--nodes 3] [--agents 6] [--connections 36] [--seconds 5]
 * [--repeats 3] [--warmup 120] --admin-db-url URL --cluster-config FILE.
 */
public final class ClusterBenchmark {

  private ClusterBenchmark() {
  }

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, Set.of("nodes", "agents", "connections", "seconds", "repeats", "warmup", "admin-db-url",
        "cluster-config"));
    int nodes = args.integer("nodes", 3);
    int agents = args.integer("agents", 6);
    int connections = args.integer("connections", 36);
    int seconds = args.integer("seconds", 5);
    int repeats = args.integer("repeats", 3);
    int warmup = args.integer("warmup", 120);
    String adminUrl = args.string("admin-db-url", null);
    String clusterConfig = args.string("cluster-config", null);
    if (adminUrl == null || clusterConfig == null) {
      throw new IllegalArgumentException("--admin-db-url and --cluster-config are required (scripts/bench-server cluster"
          + " passes them)");
    }
    System.out.println("Heartbeats of 1 against " + nodes + " cluster nodes on one PostgreSQL, same run");
    System.out.printf("%d agents, %d kept-alive plain-HTTP connections spread over the nodes, %d × %d s after %d s"
        + " of warm-up%n", agents, connections, repeats, seconds, warmup);
    System.out.println(MachineState.header());
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Runtime.getRuntime().availableProcessors())
        .setPreferNativeTransport(true));
    List<String> summary = new ArrayList<>();
    try {
      MachineState.begin(); // loads OSHI before anything is measured
      for (int count : nodes == 1 ? List.of(1) : List.of(1, nodes)) {
        String db = newDatabase(adminUrl, "bench_" + count + "_nodes_" + ProcessHandle.current().pid());
        summary.add(measure(vertx, count, db, Path.of(clusterConfig), agents, connections, seconds, repeats, warmup));
      }
    } finally {
      vertx.close().await();
    }
    System.out.println();
    System.out.println("nodes  heartbeats/s     p50 ms           p99 ms           nodes' CPU µs/heartbeat");
    summary.forEach(System.out::println);
  }

  private static String measure(Vertx vertx, int count, String dbUrl, Path clusterConfig, int agentCount,
      int connections, int seconds, int repeats, int warmup) throws Exception {
    List<ServerProcess> servers = new ArrayList<>();
    try {
      // the first node migrates the new database; the others start together once it has
      servers.add(node(dbUrl, clusterConfig));
      servers.get(0).awaitHealthy(Duration.ofSeconds(120));
      for (int i = 1; i < count; i++) {
        servers.add(node(dbUrl, clusterConfig));
      }
      for (ServerProcess server : servers) {
        server.awaitHealthy(Duration.ofSeconds(120));
      }
      awaitMembers(vertx, servers, count);
      List<Long> pids = servers.stream().map(ServerProcess::pid).toList();
      System.out.printf("%n%d node(s): bin/svc web --insecure --cluster, pids %s%n", count, pids);
      List<BenchAgent> agents = new ArrayList<>();
      for (int i = 0; i < agentCount; i++) {
        agents.add(BenchAgent.register(vertx, servers.get(0), String.format("bench-gpu-%03d", i)));
      }
      List<ClosedLoop.Lane> lanes = lanes(servers, agents, connections);
      ClosedLoop.run(vertx, lanes, warmup * 1000L, 0, pids);
      List<ClosedLoop.Result> runs = new ArrayList<>();
      for (int r = 1; r <= repeats; r++) {
        ClosedLoop.Result result = ClosedLoop.run(vertx, lanes, 1000, seconds * 1000L, pids);
        runs.add(result);
        System.out.printf("  %d  heartbeat  %s  %s%n", r, result.describe(), result.machine());
      }
      return String.format(Locale.ROOT, "%5d  %-15s  %-15s  %-15s  %s", count,
          HeartbeatBenchmark.range(runs, ClosedLoop.Result::perSecond, "%,.0f"),
          HeartbeatBenchmark.range(runs, x -> x.latencyMs(50), "%.2f"),
          HeartbeatBenchmark.range(runs, x -> x.latencyMs(99), "%.2f"),
          HeartbeatBenchmark.range(runs, ClosedLoop.Result::serverCpuMicrosPerRequest, "%.0f"));
    } finally {
      for (int i = servers.size() - 1; i >= 0; i--) {
        servers.get(i).close();
        ServerProcess.delete(servers.get(i).home());
      }
    }
  }

  private static ServerProcess node(String dbUrl, Path clusterConfig) throws Exception {
    return ServerProcess.start(ServerProcess.newHome(), false, "--cluster", "--cluster-config",
        clusterConfig.toString(), "--cluster-host", "127.0.0.1", "--db-url", dbUrl);
  }

  /** Each agent's connections spread over every node, so the load is the same per node. */
  private static List<ClosedLoop.Lane> lanes(List<ServerProcess> servers, List<BenchAgent> agents, int connections)
      throws Exception {
    List<ClosedLoop.Lane> lanes = new ArrayList<>();
    int pairs = servers.size() * agents.size();
    int k = 0;
    for (BenchAgent agent : agents) {
      for (ServerProcess server : servers) {
        int share = connections / pairs + (k++ < connections % pairs ? 1 : 0);
        if (share > 0) {
          lanes.add(new ClosedLoop.Lane(agent.clientOptions(server), share, HttpMethod.POST, agent.heartbeatPath(),
              agent.token(), BenchAgent.IDLE_HEARTBEAT));
        }
      }
    }
    return lanes;
  }

  /** Waits until every node's health lists {@code count} members. */
  private static void awaitMembers(Vertx vertx, List<ServerProcess> servers, int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    for (ServerProcess server : servers) {
      while (true) {
        JsonObject health;
        try {
          health = BenchAgent.call(vertx, BenchAgent.options(server, null), HttpMethod.GET, "/api/v1/health", null,
              null, 200);
        } catch (Exception e) {
          throw new IllegalStateException("health of node " + server.baseUrl() + ": " + e.getMessage(), e);
        }
        JsonObject cluster = health.getJsonObject("cluster");
        if (cluster != null && cluster.getJsonArray("members").size() == count) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("node " + server.baseUrl() + " does not see " + count + " members: " + health);
        }
        Thread.sleep(100); // the poll's period; the deadline bounds the wait
      }
    }
  }

  private static String newDatabase(String adminUrl, String name) throws Exception {
    try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
      st.executeUpdate("CREATE DATABASE " + name);
    }
    return adminUrl.replaceFirst("/postgres\\?", "/" + name + "?");
  }
}
