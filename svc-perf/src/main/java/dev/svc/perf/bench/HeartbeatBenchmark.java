package dev.svc.perf.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Heartbeats/s against {@code GET /api/v1/health} on the same server in the
 * same run, printed as a ratio; first on plain HTTP ({@code svc web --insecure}) with kept-alive
 * connections, the Java client and (when installed) wrk as a cross-check, then over HTTPS with
 * mutual TLS, each agent presenting the certificate the server issued it. Each route is measured
 * {@code --repeats} times, alternating, after a warm-up; the server's RSS is sampled throughout.
 * Prints figures; asserts nothing. Usage: scripts/bench-server heartbeat [--agents 4]
 * [--connections 32] [--seconds 5] [--repeats 3] [--warmup 10] [--only plain|mtls].
 */
public final class HeartbeatBenchmark {

  private HeartbeatBenchmark() {
  }

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, Set.of("agents", "connections", "seconds", "repeats", "warmup", "only"));
    int agents = args.integer("agents", 4);
    int connections = args.integer("connections", 32);
    int seconds = args.integer("seconds", 5);
    int repeats = args.integer("repeats", 3);
    int warmup = args.integer("warmup", 10);
    String only = args.string("only", "both");
    System.out.println("Heartbeats/s beside GET /api/v1/health on the same server");
    System.out.printf("%d agents, %d kept-alive connections, %d × %d s per route after %d s of warm-up each%n",
        agents, connections, repeats, seconds, warmup);
    System.out.println(MachineState.header());
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(Runtime.getRuntime().availableProcessors())
        .setPreferNativeTransport(true));
    try {
      MachineState.begin(); // loads OSHI before anything is measured
      if (!only.equals("mtls")) {
        measure(vertx, false, agents, connections, seconds, repeats, warmup);
      }
      if (!only.equals("plain")) {
        measure(vertx, true, agents, connections, seconds, repeats, warmup);
      }
    } finally {
      vertx.close().await();
    }
  }

  private static void measure(Vertx vertx, boolean tls, int agentCount, int connections, int seconds, int repeats,
      int warmup) throws Exception {
    try (ServerProcess server = ServerProcess.start(ServerProcess.newHome(), tls)) {
      server.awaitHealthy(java.time.Duration.ofSeconds(60));
      System.out.printf("%n%s: bin/svc web%s, pid %d, %s%n", tls ? "HTTPS with mutual TLS" : "plain HTTP",
          tls ? "" : " --insecure", server.pid(), tls ? "each agent's connections present its certificate,"
              + " issued through POST /api/v1/agents/certificate" : "keep-alive");
      List<BenchAgent> agents = new ArrayList<>();
      for (int i = 0; i < agentCount; i++) {
        agents.add(BenchAgent.register(vertx, server, String.format("bench-gpu-%03d", i)));
      }
      HeartbeatLoad load = new HeartbeatLoad(vertx, server, agents, connections);
      System.out.println("  server RSS idle, agents registered: " + Rss.mib(Rss.kib(server.pid()).orElse(0)));
      try (Rss.Sampler rss = new Rss.Sampler(server.pid(), 200)) {
        load.health(warmup * 1000L, 0);
        load.heartbeats(warmup * 1000L, 0);
        List<Double> ratios = new ArrayList<>();
        List<ClosedLoop.Result> health = new ArrayList<>();
        List<ClosedLoop.Result> heartbeats = new ArrayList<>();
        System.out.println("  Java client (Vert.x, " + Runtime.getRuntime().availableProcessors() + " event loops):");
        for (int r = 1; r <= repeats; r++) {
          ClosedLoop.Result h = load.health(1000, seconds * 1000L);
          ClosedLoop.Result b = load.heartbeats(1000, seconds * 1000L);
          health.add(h);
          heartbeats.add(b);
          ratios.add(b.perSecond() / h.perSecond());
          System.out.printf("  %d  health     %s  %s%n", r, h.describe(), h.machine());
          System.out.printf("     heartbeat  %s  %s%n", b.describe(), b.machine());
          System.out.printf(Locale.ROOT, "     ratio %.1f %% (of server CPU per request: %.1f %%)%n",
              100 * b.perSecond() / h.perSecond(), 100 * h.serverCpuMicrosPerRequest() / b.serverCpuMicrosPerRequest());
        }
        System.out.printf(Locale.ROOT, "  range: health %s req/s, heartbeats %s/s, ratio %s %% (target ≥ 40 %%);"
                + " heartbeat p50 %s ms, p99 %s ms%n",
            range(health, ClosedLoop.Result::perSecond, "%,.0f"), range(heartbeats, ClosedLoop.Result::perSecond, "%,.0f"),
            range(ratios, d -> 100 * d, "%.1f"),
            range(heartbeats, x -> x.latencyMs(50), "%.2f"), range(heartbeats, x -> x.latencyMs(99), "%.2f"));
        if (!tls) {
          crossCheckWithWrk(server, agents, connections, seconds, repeats);
        }
        System.out.println("  server RSS: at most " + Rss.mib(rss.maxKib()) + " during these runs, "
            + Rss.mib(rss.lastKib()) + " at their end");
      }
      server.close();
      ServerProcess.delete(server.home());
    }
  }

  private static void crossCheckWithWrk(ServerProcess server, List<BenchAgent> agents, int connections, int seconds,
      int repeats) throws Exception {
    if (!Wrk.available()) {
      System.out.println("  wrk: not installed, no cross-check (Debian: apt-get install wrk)");
      return;
    }
    int threads = Math.min(2, Runtime.getRuntime().availableProcessors());
    System.out.printf("  wrk -t%d -c%d -d%ds --latency:%n", threads, connections, seconds);
    String script = Wrk.heartbeatScript(agents, BenchAgent.IDLE_HEARTBEAT.toString());
    List<Double> ratios = new ArrayList<>();
    for (int r = 1; r <= repeats; r++) {
      MachineState m1 = MachineState.begin();
      Wrk.Result h = Wrk.run(server.baseUrl() + "/api/v1/health", threads, connections, seconds, null);
      String s1 = m1.since();
      MachineState m2 = MachineState.begin();
      Wrk.Result b = Wrk.run(server.baseUrl() + "/", threads, connections, seconds, script);
      String s2 = m2.since();
      ratios.add(b.perSecond() / h.perSecond());
      System.out.printf("  %d  health     %s  %s%n", r, h.describe(), s1);
      System.out.printf("     heartbeat  %s  %s%n", b.describe(), s2);
      System.out.printf(Locale.ROOT, "     ratio %.1f %%%n", 100 * b.perSecond() / h.perSecond());
    }
    System.out.printf(Locale.ROOT, "  wrk range: ratio %s %%%n", range(ratios, d -> 100 * d, "%.1f"));
  }

  /** "min–max" of a figure over runs. */
  static <T> String range(List<T> runs, ToDoubleFunction<T> figure, String format) {
    // a run that answered nothing has no latency: it is left out of the range, not counted as 0
    double min = runs.stream().mapToDouble(figure).filter(d -> !Double.isNaN(d)).min().orElse(Double.NaN);
    double max = runs.stream().mapToDouble(figure).filter(d -> !Double.isNaN(d)).max().orElse(Double.NaN);
    return String.format(Locale.ROOT, format, min) + "–" + String.format(Locale.ROOT, format, max);
  }

  /** The two loads of this benchmark on one server: health and heartbeats, over the same connections per lane. */
  static final class HeartbeatLoad {
    private final Vertx vertx;
    private final long serverPid;
    private final List<ClosedLoop.Lane> healthLanes = new ArrayList<>();
    private final List<ClosedLoop.Lane> heartbeatLanes = new ArrayList<>();

    /** {@code connections} spread over the agents (each agent's own client: its certificate on HTTPS). */
    HeartbeatLoad(Vertx vertx, ServerProcess server, List<BenchAgent> agents, int connections) throws Exception {
      this.vertx = vertx;
      this.serverPid = server.pid();
      for (int i = 0; i < agents.size(); i++) {
        BenchAgent agent = agents.get(i);
        int share = connections / agents.size() + (i < connections % agents.size() ? 1 : 0);
        if (share == 0) {
          continue;
        }
        var options = agent.clientOptions(server);
        heartbeatLanes.add(new ClosedLoop.Lane(options, share, HttpMethod.POST, agent.heartbeatPath(), agent.token(),
            BenchAgent.IDLE_HEARTBEAT));
        healthLanes.add(new ClosedLoop.Lane(options, share, HttpMethod.GET, "/api/v1/health", null, null));
      }
    }

    ClosedLoop.Result health(long warmupMs, long measureMs) {
      return ClosedLoop.run(vertx, healthLanes, warmupMs, measureMs, serverPid);
    }

    ClosedLoop.Result heartbeats(long warmupMs, long measureMs) {
      return ClosedLoop.run(vertx, heartbeatLanes, warmupMs, measureMs, serverPid);
    }
  }
}
