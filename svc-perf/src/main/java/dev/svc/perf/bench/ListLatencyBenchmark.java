package dev.svc.perf.bench;

import dev.svc.bench.perf.MachineCpu;
import dev.svc.core.protocol.BadMessage;
import dev.svc.server.db.SqlDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * List pages at 100,000 results and 1,000,000 log lines. Seeds a fresh
 * database ({@link ListSeed}; or reuses one seeded before, with {@code --home}), starts the real
 * server (the jar, plain HTTP, on that home) and times sequential GETs of the API's lists and the
 * dashboard's list pages after a warmup: p50, p99 and max per request, and the server's CPU time per
 * request beyond what it uses idle (which a busy machine inflates far less than latency), with the
 * machine's state.
 * Prints figures; asserts nothing.
 *
 * <pre>scripts/bench-server lists [--results N] [--tests N] [--log-lines N] [--agents N] [--campaigns N]
 *     [--reps N] [--warmup N] [--home DIR] [--db-url JDBC-URL] [--only SUBSTRING,…] [--server-jar JAR]</pre>
 *
 * {@code --server-jar} runs another build's server (its {@code lib/} beside it) on the same data,
 * for a before-and-after comparison; a database seeded by a newer build may be ahead of its schema.
 */
public final class ListLatencyBenchmark {

  /** How long the server's CPU use is read with no request, before the timed requests. */
  private static final long IDLE_MS = 10_000;

  private ListLatencyBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = options(args);
    int reps = Integer.parseInt(opts.getOrDefault("reps", "200"));
    int warmup = Integer.parseInt(opts.getOrDefault("warmup", "50"));
    ListSeed.Plan plan = new ListSeed.Plan(Integer.parseInt(opts.getOrDefault("agents", "1000")),
        Integer.parseInt(opts.getOrDefault("results", "100000")), Integer.parseInt(opts.getOrDefault("tests", "20000")),
        Long.parseLong(opts.getOrDefault("log-lines", "1000000")), Integer.parseInt(opts.getOrDefault("long-logs", "20")),
        Integer.parseInt(opts.getOrDefault("long-log-lines", "20000")),
        Integer.parseInt(opts.getOrDefault("campaigns", "500")), Integer.parseInt(opts.getOrDefault("doc-bytes", "4000")));
    Path home = opts.containsKey("home") ? Path.of(opts.get("home")).toAbsolutePath()
        : Files.createTempDirectory("svc-bench-lists-");
    Path svcHome = home.resolve("svc");
    String dbUrl = opts.getOrDefault("db-url", SqlDatabase.sqliteUrl(svcHome.resolve("svc.db")));

    MachineCpu.now(); // loads OSHI before anything is timed
    System.out.printf("machine: %d cores, Java %s, load average %s%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"), loadAverage());

    Path marker = home.resolve("seeded.json");
    ListSeed.Seeded seeded;
    if (Files.exists(marker)) {
      try {
        seeded = ListSeed.Seeded.parse(new JsonObject(Files.readString(marker)));
      } catch (BadMessage | DecodeException e) {
        throw new IllegalStateException(marker + " was not written by this benchmark; give a new --home to seed afresh: "
            + e.getMessage(), e);
      }
      System.out.println("database: reusing " + dbUrl + " (" + Files.readString(home.resolve("plan.txt")).trim() + ")");
    } else {
      Files.createDirectories(svcHome);
      seeded = seed(dbUrl, plan);
      Files.writeString(marker, seeded.toJson().encode());
      Files.writeString(home.resolve("plan.txt"), describe(plan, seeded));
    }

    Path resultsDir = Files.createDirectories(home.resolve("results-dir")); // empty: nothing to index
    int port = freePort();
    Process server = startServer(home, svcHome, resultsDir, dbUrl, port, opts.get("server-jar"));
    try {
      String base = "http://127.0.0.1:" + port;
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5)).build();
      long startMs = System.currentTimeMillis();
      awaitHealthy(http, base, server);
      System.out.printf("server: healthy %d ms after start (migrations included), log %s%n",
          System.currentTimeMillis() - startMs, home.resolve("server.log"));

      List<Probe> probes = probes(http, base, seeded);
      String only = opts.get("only");
      // what the server spends with no request at all (its timers, two dispatcher sweeps): taken out of
      // the CPU time per request below
      Duration idleFrom = cpu(server);
      long idleStart = System.nanoTime();
      Thread.sleep(IDLE_MS); // measuring an idle interval: nothing to wait on
      double idleShare = (cpu(server).minus(idleFrom).toNanos()) / (double) (System.nanoTime() - idleStart);
      System.out.printf(Locale.ROOT, "server idle: %.1f %% of a core over %d s%n", 100 * idleShare, IDLE_MS / 1000);
      System.out.printf("%nsequential GETs, %d warmup each (all before any is timed), then %d timed each (ms);"
          + " cpu: the server's CPU time per request beyond its idle rate%n", warmup, reps);
      System.out.printf("%-44s %9s %8s %8s %8s %8s  %s%n", "request", "bytes", "p50", "p99", "max", "cpu", "path");
      probes.removeIf(probe -> only != null && Arrays.stream(only.split(",")).noneMatch(probe.name::contains));
      // every request warms up before any is timed: the first one timed would otherwise pay for compiling
      // the code paths all of them share
      for (Probe probe : probes) {
        for (int i = 0; i < warmup; i++) {
          get(http, base + probe.path);
        }
      }
      MachineCpu before = MachineCpu.now();
      for (Probe probe : probes) {
        long[] nanos = new long[reps];
        int bytes = 0;
        Duration cpuFrom = cpu(server);
        long loopStart = System.nanoTime();
        for (int i = 0; i < reps; i++) {
          long t0 = System.nanoTime();
          bytes = get(http, base + probe.path).length();
          nanos[i] = System.nanoTime() - t0;
        }
        double idleNanos = idleShare * (System.nanoTime() - loopStart);
        double cpuMs = Math.max(0, cpu(server).minus(cpuFrom).toNanos() - idleNanos) / 1e6 / reps;
        Arrays.sort(nanos);
        System.out.printf(Locale.ROOT, "%-44s %9d %8.1f %8.1f %8.1f %8.1f  %s%n", probe.name, bytes, ms(nanos[reps / 2]),
            ms(nanos[(int) Math.ceil(reps * 0.99) - 1]), ms(nanos[reps - 1]), cpuMs, probe.path);
      }
      System.out.printf("%n%s; load average %s%n", MachineCpu.now().since(before), loadAverage());
    } finally {
      server.destroy();
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    }
  }

  private record Probe(String name, String path) {
  }

  /** The requests timed: first and deep pages, with and without filters, logs, the dashboard's list pages. */
  private static List<Probe> probes(HttpClient http, String base, ListSeed.Seeded s) throws Exception {
    List<Probe> out = new ArrayList<>();
    String model = enc(s.model());
    long resultPages = pages(http, base + "/api/v1/results");
    long testPages = pages(http, base + "/api/v1/quicktest");
    long enginePages = pages(http, base + "/api/v1/results?engine=" + s.engine());
    long completedPages = pages(http, base + "/api/v1/quicktest?status=completed");
    // the id a client that follows the long log has reached: 20 lines before its end
    List<Long> ids = new ArrayList<>();
    for (long after = 0; ; ) {
      List<Long> read = LogPage.parse(new JsonObject(get(http, base + "/api/v1/quicktest/" + s.longLogTest()
          + "/logs?limit=10000&after=" + after))).lineIds();
      ids.addAll(read);
      if (read.size() < 10_000) {
        break;
      }
      after = ids.get(ids.size() - 1);
    }
    long lastSeen = ids.get(Math.max(0, ids.size() - 21));
    out.add(new Probe("api results, first page", "/api/v1/results"));
    out.add(new Probe("api results, first page of 200", "/api/v1/results?per_page=200"));
    out.add(new Probe("api results, middle page", "/api/v1/results?page=" + (resultPages / 2)));
    out.add(new Probe("api results, last page", "/api/v1/results?page=" + resultPages));
    out.add(new Probe("api results, engine filter, first page", "/api/v1/results?engine=" + s.engine()));
    out.add(new Probe("api results, engine filter, last page", "/api/v1/results?engine=" + s.engine()
        + "&page=" + enginePages));
    out.add(new Probe("api results, model+engine filter", "/api/v1/results?model=" + model + "&engine=" + s.engine()));
    out.add(new Probe("api results, agent filter", "/api/v1/results?agent_id=" + s.agentId()));
    out.add(new Probe("api results, since filter", "/api/v1/results?since="
        + enc(dev.svc.core.Timestamps.format(Instant.now().minus(Duration.ofDays(30))))));
    out.add(new Probe("api quicktest, first page", "/api/v1/quicktest"));
    out.add(new Probe("api quicktest, last page", "/api/v1/quicktest?page=" + testPages));
    out.add(new Probe("api quicktest, status filter, last page", "/api/v1/quicktest?status=completed&page="
        + completedPages));
    out.add(new Probe("api quicktest, agent filter", "/api/v1/quicktest?agent_name=" + s.agentName()));
    out.add(new Probe("api logs, long test, first read", "/api/v1/quicktest/" + s.longLogTest() + "/logs"));
    out.add(new Probe("api logs, long test, 10,000 lines", "/api/v1/quicktest/" + s.longLogTest() + "/logs?limit=10000"));
    out.add(new Probe("api logs, long test, after (incremental)", "/api/v1/quicktest/" + s.longLogTest()
        + "/logs?after=" + lastSeen));
    out.add(new Probe("api logs, short test", "/api/v1/quicktest/" + s.shortLogTest() + "/logs"));
    out.add(new Probe("api campaigns, first page", "/api/v1/campaigns"));
    out.add(new Probe("page /results", "/results"));
    out.add(new Probe("page /results, last page", "/results?page=" + resultPages));
    out.add(new Probe("page /quicktest", "/quicktest"));
    out.add(new Probe("page /quicktest, last page", "/quicktest?page=" + testPages));
    out.add(new Probe("page /quicktest?status=completed", "/quicktest?status=completed"));
    out.add(new Probe("page /campaigns", "/campaigns"));
    out.add(new Probe("page /agents", "/agents"));
    out.add(new Probe("page / (home)", "/"));
    return out;
  }

  private static long pages(HttpClient http, String url) throws Exception {
    return ListEnvelope.parse(new JsonObject(get(http, url))).pages();
  }

  private static ListSeed.Seeded seed(String dbUrl, ListSeed.Plan plan) throws Exception {
    long t0 = System.nanoTime();
    Vertx vertx = Vertx.vertx();
    try {
      // the server's own migrations make the schema; the rows go in through plain JDBC
      SqlDatabase db = SqlDatabase.open(vertx, dbUrl).toCompletionStage().toCompletableFuture().get(5, TimeUnit.MINUTES);
      db.close().toCompletionStage().toCompletableFuture().get(1, TimeUnit.MINUTES);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(1, TimeUnit.MINUTES);
    }
    ListSeed.Seeded seeded;
    try (Connection c = DriverManager.getConnection(dbUrl)) {
      if (dbUrl.startsWith("jdbc:sqlite:")) {
        try (Statement st = c.createStatement()) {
          st.execute("PRAGMA synchronous = OFF"); // a crash while seeding just means seeding again
        }
      }
      seeded = new ListSeed(plan, Instant.now()).seed(c);
      if (dbUrl.startsWith("jdbc:postgresql:")) {
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
          st.execute("ANALYZE");
        }
      }
    }
    System.out.printf("database: seeded %s in %.1f s: %s%n", dbUrl, (System.nanoTime() - t0) / 1e9, describe(plan, seeded));
    return seeded;
  }

  private static String describe(ListSeed.Plan plan, ListSeed.Seeded seeded) {
    return String.format(Locale.ROOT, "%,d results (documents of about %,d bytes), %,d quick tests, %,d log lines"
        + " (%d tests of %,d lines), %,d agents, %,d campaigns", plan.results(), plan.docBytes(), plan.tests(),
        seeded.logLines(), plan.longLogTests(), seeded.longLogLines(), plan.agents(), plan.campaigns());
  }

  private static Process startServer(Path home, Path svcHome, Path resultsDir, String dbUrl, int port, String serverJar)
      throws IOException {
    Path root = Path.of(System.getProperty("svc.bench.root", ".")).toAbsolutePath().normalize();
    Path jar = serverJar != null ? Path.of(serverJar).toAbsolutePath() : root.resolve("svc-server/target/svc-server.jar");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    String jvm = System.getenv("SVC_JAVA_OPTS");
    if (jvm != null && !jvm.isBlank()) {
      command.addAll(List.of(jvm.trim().split("\\s+")));
    }
    command.addAll(List.of("-Dsvc.app.home=" + root, "-jar", jar.toString(), "web", "--insecure", "--host", "127.0.0.1",
        "--port", String.valueOf(port), "--home", svcHome.toString(), "--results-dir", resultsDir.toString(),
        "--db-url", dbUrl));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(home.resolve("server.log").toFile());
    pb.environment().put("HOME", home.toString());
    pb.environment().remove("SVC_AUTH_TOKEN");
    return pb.start();
  }

  private static void awaitHealthy(HttpClient http, String base, Process server) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!server.isAlive()) {
        throw new IllegalStateException("The server exited with " + server.exitValue() + "; see its log");
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/health"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100); // polling a process that is starting: nothing to wait on but its port
    }
    throw new IllegalStateException("The server did not answer /api/v1/health within 10 minutes");
  }

  private static String get(HttpClient http, String url) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("GET " + url + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body();
  }

  /** The CPU time the server's process has used so far (all its threads). */
  private static Duration cpu(Process server) {
    return server.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
  }

  private static String enc(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("Options are --name value pairs; got '" + args[i] + "'");
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }
}
