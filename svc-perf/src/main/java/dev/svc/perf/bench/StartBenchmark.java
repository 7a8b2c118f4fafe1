package dev.svc.perf.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * From launching {@code bin/svc web} (jar built) to the first 200 of
 * {@code GET https://…/api/v1/health}, on a fresh HOME (the first start makes the CA, the server
 * certificate, the database and its schema) and again on that HOME; the server's RSS
 * ({@code VmRSS}) once idle after each start, and at most while it takes benchmark 1's heartbeat
 * load over mutual TLS. Usage: scripts/bench-server start [--repeats 5] [--idle-seconds 5]
 * [--load-seconds 10] [--agents 4] [--connections 32].
 */
public final class StartBenchmark {

  private StartBenchmark() {
  }

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, Set.of("repeats", "idle-seconds", "load-seconds", "agents", "connections"));
    int repeats = args.integer("repeats", 5);
    int idle = args.integer("idle-seconds", 5);
    int loadSeconds = args.integer("load-seconds", 10);
    int agentCount = args.integer("agents", 4);
    int connections = args.integer("connections", 32);
    System.out.println("Server start to first healthy HTTPS response, and RSS");
    System.out.printf("%d repeats; RSS idle %d s after healthy; heartbeat load over mutual TLS: %d agents,"
        + " %d connections, %d s%n", repeats, idle, agentCount, connections, loadSeconds);
    System.out.println(MachineState.header() + "; " + ServerProcess.jvmOptions()
        + "; class archive: " + classArchive());
    ServerProcess.HealthProbe.warm();
    MachineState.begin(); // loads OSHI before anything is measured
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Runtime.getRuntime().availableProcessors())
        .setPreferNativeTransport(true));
    List<Double> first = new ArrayList<>();
    List<Double> second = new ArrayList<>();
    List<Double> idleFirst = new ArrayList<>();
    List<Double> idleSecond = new ArrayList<>();
    List<Double> loaded = new ArrayList<>();
    List<Double> cpuFirst = new ArrayList<>();
    List<Double> cpuSecond = new ArrayList<>();
    try {
      System.out.println("  run  fresh HOME: healthy after (server CPU), RSS idle   existing HOME: healthy after (CPU),"
          + " RSS idle, RSS under load (max)   machine");
      for (int r = 1; r <= repeats; r++) {
        MachineState machine = MachineState.begin();
        Path home = ServerProcess.newHome();
        double rssFirst;
        double t1;
        double cpu1;
        double cpu2;
        String threads1;
        String threads2;
        try (ServerProcess server = ServerProcess.start(home, true)) {
          t1 = server.awaitHealthy(Duration.ofSeconds(60)).toNanos() / 1e9;
          cpu1 = ProcessCpu.seconds(server.pid()).orElse(Double.NaN);
          threads1 = ProcessCpu.describe(ProcessCpu.byThreadKind(server.pid()));
          rssFirst = idleRssMib(server, idle);
        }
        double t2;
        double rssSecond;
        double rssLoaded;
        try (ServerProcess server = ServerProcess.start(home, true)) {
          t2 = server.awaitHealthy(Duration.ofSeconds(60)).toNanos() / 1e9;
          cpu2 = ProcessCpu.seconds(server.pid()).orElse(Double.NaN);
          threads2 = ProcessCpu.describe(ProcessCpu.byThreadKind(server.pid()));
          rssSecond = idleRssMib(server, idle);
          rssLoaded = loadedRssMib(vertx, server, agentCount, connections, loadSeconds);
        }
        // SqlDatabase says so when the database was current: the second start should not run Liquibase
        String liquibase = Files.readString(home.resolve("server.log")).contains("Liquibase not run")
            ? "Liquibase skipped" : "Liquibase ran";
        ServerProcess.delete(home);
        first.add(t1);
        second.add(t2);
        idleFirst.add(rssFirst);
        idleSecond.add(rssSecond);
        loaded.add(rssLoaded);
        cpuFirst.add(cpu1);
        cpuSecond.add(cpu2);
        System.out.printf(Locale.ROOT, "  %2d   %5.2f s (CPU %4.1f s), %4.0f MiB     %5.2f s (CPU %4.1f s), %4.0f MiB,"
            + " %4.0f MiB   %s%n", r, t1, cpu1, rssFirst, t2, cpu2, rssSecond, rssLoaded, machine.since());
        System.out.println("        CPU to healthy by thread, fresh HOME: " + threads1);
        System.out.println("                              existing HOME: " + threads2 + " (" + liquibase + ")");
      }
      System.out.printf(Locale.ROOT, "  range: start to healthy %s s on a fresh HOME, %s s on an existing one"
          + " (target ≤ 3 s)%n", HeartbeatBenchmark.range(first, d -> d, "%.2f"),
          HeartbeatBenchmark.range(second, d -> d, "%.2f"));
      System.out.printf(Locale.ROOT, "  range: the server's CPU time to healthy %s s (fresh HOME), %s s (existing)%n",
          HeartbeatBenchmark.range(cpuFirst, d -> d, "%.1f"), HeartbeatBenchmark.range(cpuSecond, d -> d, "%.1f"));
      System.out.printf(Locale.ROOT, "  range: RSS idle %s MiB (fresh HOME), %s MiB (existing; target ≤ 250 MiB);"
          + " under the heartbeat load %s MiB%n", HeartbeatBenchmark.range(idleFirst, d -> d, "%.0f"),
          HeartbeatBenchmark.range(idleSecond, d -> d, "%.0f"), HeartbeatBenchmark.range(loaded, d -> d, "%.0f"));
    } finally {
      vertx.close().await();
    }
  }

  /**
   * Whether bin/svc hands svc web the class archive of scripts/web-class-archive: it does when the
   * archive is newer than the jar (the figures differ by seconds).
   */
  private static String classArchive() throws IOException {
    Path target = ServerProcess.appRoot().resolve("svc-server/target");
    Path archive = target.resolve("svc-web.jsa");
    if (!Files.exists(archive)) {
      return "none (scripts/web-class-archive makes it)";
    }
    return Files.getLastModifiedTime(archive)
        .compareTo(Files.getLastModifiedTime(target.resolve("svc-server.jar"))) > 0
        ? "yes" : "older than the jar, not used (rerun scripts/web-class-archive)";
  }

  /** VmRSS after the server has been idle for {@code seconds} since it answered healthy. */
  private static double idleRssMib(ServerProcess server, int seconds) throws InterruptedException {
    Thread.sleep(seconds * 1000L); // the idle period being measured
    return Rss.kib(server.pid()).orElse(0) / 1024.0;
  }

  /** The highest VmRSS while the heartbeat benchmark's load runs over mutual TLS. */
  private static double loadedRssMib(Vertx vertx, ServerProcess server, int agentCount, int connections, int seconds)
      throws Exception {
    List<BenchAgent> agents = new ArrayList<>();
    for (int i = 0; i < agentCount; i++) {
      agents.add(BenchAgent.register(vertx, server, String.format("bench-gpu-%03d", i)));
    }
    HeartbeatBenchmark.HeartbeatLoad load = new HeartbeatBenchmark.HeartbeatLoad(vertx, server, agents, connections);
    try (Rss.Sampler rss = new Rss.Sampler(server.pid(), 100)) {
      load.heartbeats(0, seconds * 1000L);
      return rss.maxKib() / 1024.0;
    }
  }
}
