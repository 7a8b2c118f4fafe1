package dev.svc.perf.bench;

import dev.svc.core.tls.TrustAnyServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;

/**
 * A real {@code svc web} for a benchmark: started with {@code bin/svc} as a user starts it (so the
 * JVM options of bin/svc and {@code SVC_JAVA_OPTS} apply), on 127.0.0.1 and a free port, with a
 * HOME of its own (the svc home is {@code <HOME>/.svc}) and an empty results directory; its output
 * goes to {@code <HOME>/server.log}. Closing it stops the server (SIGTERM, then SIGKILL after 15 s).
 */
public final class ServerProcess implements AutoCloseable {

  private final Process process;
  private final Path home;
  private final int port;
  private final boolean tls;
  private final long launchedNanos;

  private ServerProcess(Process process, Path home, int port, boolean tls, long launchedNanos) {
    this.process = process;
    this.home = home;
    this.port = port;
    this.tls = tls;
    this.launchedNanos = launchedNanos;
  }

  /** The repository (or installation) whose bin/svc runs the server: -Dsvc.app.home, else the working directory. */
  public static Path appRoot() {
    String configured = System.getProperty("svc.app.home");
    return Path.of(configured == null ? "" : configured).toAbsolutePath().normalize();
  }

  /** What the servers' JVM options are, for a benchmark's header: bin/svc's, and SVC_JAVA_OPTS when set. */
  public static String jvmOptions() {
    String extra = System.getenv("SVC_JAVA_OPTS");
    return "server JVM options: bin/svc's" + (extra == null ? "" : " + SVC_JAVA_OPTS=" + extra);
  }

  /** A new temporary HOME. */
  public static Path newHome() throws IOException {
    return Files.createTempDirectory("svc-bench-home-");
  }

  /** Starts a server on {@code home} (HTTPS with the home's CA, or plain HTTP when {@code tls} is false). */
  public static ServerProcess start(Path home, boolean tls, String... extraArgs) throws IOException {
    int port = freePort();
    Path results = Files.createDirectories(home.resolve("results"));
    List<String> command = new ArrayList<>(List.of(appRoot().resolve("bin/svc").toString(), "web",
        "--host", "127.0.0.1", "--port", Integer.toString(port), "--results-dir", results.toString()));
    if (!tls) {
      command.add("--insecure");
    }
    command.addAll(List.of(extraArgs));
    ProcessBuilder builder = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("server.log").toFile()));
    builder.environment().put("HOME", home.toString());
    long launched = System.nanoTime();
    return new ServerProcess(builder.start(), home, port, tls, launched);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  public int port() {
    return port;
  }

  public boolean tls() {
    return tls;
  }

  public String baseUrl() {
    return (tls ? "https" : "http") + "://127.0.0.1:" + port;
  }

  /** The java process: bin/svc execs it, so this is the server's JVM. */
  public long pid() {
    return process.pid();
  }

  public Path home() {
    return home;
  }

  /** The CA the server's certificate chains to (created by the server on its first start). */
  public Path caPem() {
    return home.resolve(".svc/certs/ca.pem");
  }

  /**
   * Polls {@code GET /api/v1/health} every 5 ms until it answers 200 and returns the time from the
   * launch of bin/svc to that answer. The poll trusts any certificate: on a fresh home the CA does
   * not exist before the server makes it.
   */
  public Duration awaitHealthy(Duration timeout) throws Exception {
    HttpClient client = HealthProbe.CLIENT;
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl() + "/api/v1/health"))
        .timeout(Duration.ofSeconds(10)).GET().build();
    long deadline = launchedNanos + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the server exited with status " + process.exitValue() + "; its log:\n" + logTail());
      }
      try {
        HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return Duration.ofNanos(System.nanoTime() - launchedNanos);
        }
      } catch (IOException notListeningYet) {
        // connection refused until the HTTP verticle listens
      }
      Thread.sleep(5); // the poll's period
    }
    throw new IllegalStateException("the server was not healthy within " + timeout + "; its log:\n" + logTail());
  }

  /** The last lines of the server's output. */
  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(home.resolve("server.log"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Stops the server and waits for it to exit. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(15, TimeUnit.SECONDS);
    }
  }

  /** Deletes a HOME and everything under it; keeps it, and says where, when SVC_BENCH_KEEP_HOME is set (to read its server.log). */
  public static void delete(Path dir) throws IOException {
    if (System.getenv("SVC_BENCH_KEEP_HOME") != null) {
      System.out.println("kept " + dir + " (SVC_BENCH_KEEP_HOME)");
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  /** The health poll's client, made (and its TLS classes loaded) before any server is launched. */
  static final class HealthProbe {
    static final HttpClient CLIENT = create();

    private static HttpClient create() {
      try {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new TrustAnyServer()}, new SecureRandom());
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(context)
            .connectTimeout(Duration.ofSeconds(2)).build();
        return client;
      } catch (java.security.GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Warms the probe up (class loading, TLS set-up) against a port nothing listens on. */
    static void warm() {
      try {
        CLIENT.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + freePort() + "/")).build(),
            HttpResponse.BodyHandlers.discarding());
      } catch (IOException | InterruptedException expected) {
        // refused: only the loading mattered
      }
    }
  }
}
