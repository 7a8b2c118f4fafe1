package dev.svc.server.metrics;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's {@code prometheus} package, {@code /usr/bin/prometheus}) run by a
 * test on 127.0.0.1 and a free port, with a configuration and a TSDB in a folder of the test's; its
 * HTTP API answers instant queries. Stopped (and waited for) by {@link #close}.
 */
public final class PrometheusProcess implements AutoCloseable {

  /** Where Debian's package puts it; scripts/test installs the package. */
  static final Path BINARY = Path.of("/usr/bin/prometheus");

  /** One scrape job: its name, its targets (host:port), the CA file to trust and the bearer token to send. */
  public record Job(String name, List<String> targets, Path caFile, String token) {
  }

  private final Process process;
  private final int port;
  private final Path log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private PrometheusProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Writes the configuration (HTTPS scrapes of {@code /metrics} every second) and starts Prometheus in
   * {@code dir}; returns once it says it is ready. Fails, naming the package, when it is not installed.
   */
  public static PrometheusProcess start(Path dir, List<Job> jobs) throws Exception {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException(BINARY + " is missing: install Debian's prometheus package"
          + " (apt-get install prometheus; scripts/test does)");
    }
    StringBuilder config = new StringBuilder("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
        + "scrape_configs:\n");
    for (Job job : jobs) {
      config.append("  - job_name: ").append(quoted(job.name())).append('\n')
          .append("    metrics_path: /metrics\n")
          .append("    scheme: https\n")
          .append("    tls_config:\n      ca_file: ").append(quoted(job.caFile().toString())).append('\n')
          .append("    authorization:\n      credentials: ").append(quoted(job.token())).append('\n')
          .append("    static_configs:\n      - targets: [")
          .append(String.join(", ", job.targets().stream().map(PrometheusProcess::quoted).toList())).append("]\n");
    }
    Path file = dir.resolve("prometheus.yml");
    Files.writeString(file, config);
    Path data = Files.createDirectories(dir.resolve("tsdb"));
    Path log = dir.resolve("prometheus.log");
    int port = freePort();
    Process process = new ProcessBuilder(BINARY.toString(), "--config.file=" + file, "--storage.tsdb.path=" + data,
        "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    PrometheusProcess prometheus = new PrometheusProcess(process, port, log);
    try {
      prometheus.awaitReady(60_000);
      return prometheus;
    } catch (Exception | AssertionError e) {
      prometheus.close();
      throw e;
    }
  }

  /** A YAML double-quoted string. */
  private static String quoted(String value) {
    return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }

  private void awaitReady(long ms) throws Exception {
    long end = System.nanoTime() + ms * 1_000_000;
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("prometheus exited (" + process.exitValue() + "): " + log());
      }
      try {
        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(base() + "/-/ready"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (ready.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > end) {
        throw new IllegalStateException("prometheus not ready after " + ms + " ms: " + log());
      }
      Thread.sleep(100); // polling interval; the deadline bounds the wait
    }
  }

  private String base() {
    return "http://127.0.0.1:" + port;
  }

  /** The result vector of an instant query ({@code data.result}: each with {@code metric} and {@code value}). */
  public JsonArray query(String promql) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base() + "/api/v1/query?query="
        + URLEncoder.encode(promql, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonObject body = new JsonObject(response.body());
    if (response.statusCode() != 200 || !"success".equals(body.getString("status"))) {
      throw new IllegalStateException("query " + promql + ": " + response.statusCode() + " " + response.body());
    }
    return body.getJsonObject("data").getJsonArray("result");
  }

  /** The targets as Prometheus sees them (health, last error), for failure messages. */
  public String targets() {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(base() + "/api/v1/targets")).timeout(Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (Exception e) {
      return "(targets not read: " + e + ")";
    }
  }

  /** What Prometheus logged, for failure messages. */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Stops Prometheus (SIGTERM, then SIGKILL after 20 s) and waits for it. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
