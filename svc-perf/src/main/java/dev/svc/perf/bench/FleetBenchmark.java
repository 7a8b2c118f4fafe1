package dev.svc.perf.bench;

import dev.svc.core.tls.Pem;
import dev.svc.perf.fleet.CreatedResource;
import dev.svc.perf.fleet.FleetOptions;
import dev.svc.perf.fleet.FleetReport;
import dev.svc.perf.fleet.FleetSimulator;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * {@code scripts/bench-server fleet}: a real server ({@code bin/svc web} from the built jar, a HOME
 * of its own, HTTPS and a global token) with campaigns running on its test agents, and
 * {@code svc fleet simulate} against it in this JVM; prints the simulator's summary, what the
 * campaigns did meanwhile, the server's CPU time and memory, and the machine's state.
 * <pre>
 *   scripts/bench-server fleet [--agents 10000] [--interval 30] [--duration 5m] [--ramp 30s]
 *                              [--tests-per-minute 6] [--test-agents 4] [--insecure] [--shared-connections N]
 * </pre>
 */
public final class FleetBenchmark {

  private static final String TOKEN = "fleet-benchmark-token";

  private FleetBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    int agents = 10_000;
    int interval = 30;
    String duration = "5m";
    double testsPerMinute = 6;
    int testAgents = 4;
    boolean insecure = false;
    int shared = 0;
    String ramp = null;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--agents" -> agents = Integer.parseInt(args[++i]);
        case "--interval" -> interval = Integer.parseInt(args[++i]);
        case "--duration" -> duration = args[++i];
        case "--tests-per-minute" -> testsPerMinute = Double.parseDouble(args[++i]);
        case "--test-agents" -> testAgents = Integer.parseInt(args[++i]);
        case "--shared-connections" -> shared = Integer.parseInt(args[++i]);
        case "--ramp" -> ramp = args[++i];
        case "--insecure" -> insecure = true;
        default -> {
          System.err.println("unknown option " + args[i] + (value == null ? "" : " " + value) + "; options: --agents N"
              + " --interval S --duration D --ramp D --tests-per-minute T --test-agents K --insecure --shared-connections N");
          System.exit(2);
        }
      }
    }
    System.exit(run(agents, interval, duration, ramp, testsPerMinute, testAgents, insecure, shared));
  }

  private static int run(int agents, int interval, String duration, String ramp, double testsPerMinute, int testAgents,
      boolean insecure, int shared) throws Exception {
    Path home = Files.createTempDirectory("svc-bench-fleet-");
    Files.writeString(home.resolve("token"), TOKEN);
    int port = freePort();
    String scheme = insecure ? "http" : "https";
    String base = scheme + "://127.0.0.1:" + port;
    List<String> command = new ArrayList<>(List.of(appRoot().resolve("bin/svc").toString(), "web", "--host", "127.0.0.1",
        "--port", Integer.toString(port), "--auth-token-file", home.resolve("token").toString(),
        "--results-dir", Files.createDirectories(home.resolve("results")).toString()));
    if (insecure) {
      command.add("--insecure");
    }
    ProcessBuilder builder = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
        .redirectOutput(home.resolve("server.log").toFile());
    builder.environment().put("HOME", home.toString());
    System.out.println(header());
    Process server = builder.start();
    try {
      Path ca = home.resolve(".svc/certs/ca.pem");
      HttpClient client = awaitHealthy(server, base, ca, insecure, home);
      List<String> campaigns = startCampaigns(client, base, testAgents);
      System.out.printf(Locale.ROOT, "server: %s (pid %d), %d test agents each running a campaign%n", base,
          server.pid(), testAgents);
      System.out.printf(Locale.ROOT, "svc fleet simulate --server %s --agents %d --interval %d --duration %s"
          + " --tests-per-minute %s%s%s --token-file <token> --keep-agents%s%n", base, agents, interval, duration,
          plain(testsPerMinute), ramp == null ? "" : " --ramp " + ramp, insecure ? "" : " --ca " + ca,
          shared > 0 ? " --shared-connections " + shared : "");
      long cpuBefore = cpuTicks(server.pid());
      long started = System.nanoTime();
      FleetOptions options = new FleetOptions(URI.create(base), agents, interval, testsPerMinute,
          FleetOptions.parseDuration(duration), ramp == null ? null : FleetOptions.parseDuration(ramp),
          insecure ? null : ca, TOKEN, "fleet", shared, true, 16);
      Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
      FleetReport report;
      try {
        report = new FleetSimulator(vertx, options, System.out::println).run().toCompletionStage()
            .toCompletableFuture().get();
      } finally {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      double serverCpu = (cpuTicks(server.pid()) - cpuBefore) / 100.0;
      report.lines().forEach(System.out::println);
      System.out.printf(Locale.ROOT, "server: %.0f s of CPU in %.0f s (%.2f cores on average), RSS %s MiB%n",
          serverCpu, seconds, serverCpu / seconds, rssMib(server.pid()));
      System.out.println(campaignLine(client, base, campaigns));
      return report.errorCount() == 0 ? 0 : 1;
    } finally {
      server.destroy();
      if (!server.waitFor(15, TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
      }
      delete(home);
    }
  }

  private static String header() {
    return String.format(Locale.ROOT, "machine: %d cores, Java %s, load %s, open files limit %s",
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), loadAverage(), openFiles());
  }

  private static String openFiles() {
    try {
      return Files.readAllLines(Path.of("/proc/self/limits")).stream().filter(l -> l.startsWith("Max open files"))
          .map(l -> l.substring("Max open files".length()).trim().split("\\s+")[0]).findFirst().orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | ArrayIndexOutOfBoundsException e) {
      return "unknown";
    }
  }

  /** Polls the health route until it answers, then returns a client that trusts the server's CA. */
  private static HttpClient awaitHealthy(Process server, String base, Path ca, boolean insecure, Path home)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (!server.isAlive()) {
        throw new IllegalStateException("the server exited: " + Files.readString(home.resolve("server.log")));
      }
      if (insecure || Files.isRegularFile(ca)) {
        HttpClient client = client(insecure ? null : ca);
        try {
          HttpResponse<String> health = client.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/health")).build(),
              HttpResponse.BodyHandlers.ofString());
          if (health.statusCode() == 200) {
            return client;
          }
        } catch (IOException notYet) {
          // not listening yet
        }
      }
      Thread.sleep(100); // the poll's period
    }
    throw new IllegalStateException("the server was not healthy within 90 s: " + Files.readString(home.resolve("server.log")));
  }

  private static HttpClient client(Path ca) throws Exception {
    HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5));
    if (ca != null) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      store.setCertificateEntry("ca", Pem.readCertificate(ca));
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      builder.sslContext(context);
    }
    return builder.build();
  }

  private static JsonObject call(HttpClient client, String method, String url, JsonObject body, int expected)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + TOKEN)
        .timeout(Duration.ofSeconds(30));
    if (body != null) {
      request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body.encode()));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != expected) {
      throw new IllegalStateException(method + " " + url + " answered " + response.statusCode() + ": " + response.body());
    }
    return new JsonObject(response.body());
  }

  /**
   * A test agent per campaign, each campaign 2 models × 2 engines × 3 benchmarks (12 simulated runs of
   * about 15 s each: the campaigns outlast a few minutes of fleet).
   */
  private static List<String> startCampaigns(HttpClient client, String base, int testAgents) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= testAgents; i++) {
      String agent = CreatedResource.parse(call(client, "POST", base + "/api/v1/agents/test",
          new JsonObject().put("name", "bench-test-" + i), 201)).id();
      JsonObject config = new JsonObject()
          .put("models", new JsonArray()
              .add(new JsonObject().put("name", "llama").put("path", "/models/Llama-3.1-8B-Instruct"))
              .add(new JsonObject().put("name", "qwen").put("path", "/models/Qwen2.5-7B-Instruct")))
          .put("engines", new JsonArray().add(new JsonObject().put("name", "vllm")).add(new JsonObject().put("name", "tgi")))
          .put("benchmarks", new JsonArray().add("throughput").add("latency").add("memory"))
          .put("suite_name", "quick").put("force", true);
      String id = CreatedResource.parse(call(client, "POST", base + "/api/v1/campaigns",
          new JsonObject().put("name", "bench campaign " + i).put("agent_id", agent).put("config", config), 201)).id();
      call(client, "POST", base + "/api/v1/campaigns/" + id + "/launch", null, 202);
      ids.add(id);
    }
    return ids;
  }

  private static String campaignLine(HttpClient client, String base, List<String> ids) throws Exception {
    long succeeded = 0;
    long failed = 0;
    long total = 0;
    for (String id : ids) {
      CampaignProgress campaign = CampaignProgress.parse(call(client, "GET", base + "/api/v1/campaigns/" + id, null, 200));
      succeeded += campaign.succeeded();
      failed += campaign.failed();
      total += campaign.totalRuns();
    }
    return String.format(Locale.ROOT, "campaigns meanwhile: %d on test agents, %d of %d runs succeeded, %d failed",
        ids.size(), succeeded, total, failed);
  }

  /** User plus system CPU time of a process, in clock ticks (100 per second on Linux). */
  private static long cpuTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static String rssMib(long pid) {
    try {
      return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream().filter(l -> l.startsWith("VmRSS:"))
          .map(l -> String.valueOf(Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024)).findFirst().orElse("?");
    } catch (IOException e) {
      return "?";
    }
  }

  private static Path appRoot() {
    String configured = System.getProperty("svc.app.home");
    return Path.of(configured == null ? "" : configured).toAbsolutePath().normalize();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static String plain(double value) {
    return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
