package dev.svc.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.agent.config.AgentConfig;
import dev.svc.core.SvcVersion;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, acceptance 7 and 8, with real parts: `svc web` over HTTPS, an agent enrolled with
 * `svc-agent init`, the real dockerd, and the agent's preflight, build and update run as separate
 * processes. Tampering is done by a small proxy on 127.0.0.1 that forwards to the real server and
 * flips one byte of the archive's body, leaving both announced digests as the server sent them.
 */
class AgentOpsE2ETest {

  static ServerProcess server;
  static AgentProcess agent;
  static Vertx vertx;
  static TamperingProxy proxy;

  @BeforeAll
  static void start() throws Exception {
    server = ServerProcess.start();
    agent = AgentProcess.enrol(server, "ops-agent");
    vertx = Vertx.vertx();
    proxy = TamperingProxy.start(vertx, server);
  }

  @AfterAll
  static void stop() {
    if (vertx != null) {
      vertx.close().await();
    }
    if (agent != null) {
      agent.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void preflightPrintsItsTableAndExitsZeroWhenEveryRequiredCheckHolds() {
    Processes.Run run = agent.cli("preflight");

    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).containsPattern(row("Java >= 17", "required", "PASS"))
        .containsPattern(row("container runtime available", "required", "PASS"))
        .containsPattern(row("server reachable", "required", "PASS"))
        .contains("(TLS verified)")
        // this machine has no NVIDIA GPU: the GPU rows do not apply
        .containsPattern(row("container GPU access", "required", "N/A"))
        .containsPattern(row("GPU drivers present", "required", "N/A"))
        .contains("service container image present", "NFS utilities", "disk space >= 50 GB", "agent port available");
    assertThat(run.stdout().lines().filter(l -> l.matches(".*\\s(PASS|FAIL|WARN|N/A)\\s.*")).count()).isEqualTo(9);
    // aligned: every row's verdict starts in the same column as the header's
    int column = run.stdout().lines().findFirst().orElseThrow().indexOf("VERDICT");
    assertThat(run.stdout().lines().skip(1).limit(9)).allSatisfy(line ->
        assertThat(line.substring(column)).matches("(PASS|FAIL|WARN|N/A)\\s.*"));
  }

  @Test
  void preflightExitsOneWithTheRowFailedWhenDockerdDoesNotAnswer() throws IOException {
    Path dead = Files.createTempDirectory("svc-it-nodocker-");
    try {
      ProcessBuilder builder = Processes.java(agent.dir(), "dev.svc.agent.AgentCommand",
          List.of("preflight", "--home", agent.home().toString()));
      // a socket path nobody serves: the shared dockerd keeps running for everyone else
      builder.environment().put("DOCKER_HOST", "unix://" + dead.resolve("docker.sock"));
      Processes.Run run = Processes.run(builder, Duration.ofMinutes(2));

      assertThat(run.exit()).as(run.toString()).isEqualTo(1);
      assertThat(run.stdout()).containsPattern(row("container runtime available", "required", "FAIL"))
          .containsPattern(row("server reachable", "required", "PASS"));
      assertThat(run.stderr().strip()).endsWith("svc-agent preflight: required check failed: container runtime available");
    } finally {
      Processes.deleteTree(dead);
    }
  }

  @Test
  void onAHostWhoseNvidiaSmiListsAGpuContainerGpuAccessIsRequired() throws IOException {
    // the stand-in prints what nvidia-smi's CSV query prints on an H100 host
    Path smi = agent.dir().resolve("nvidia-smi");
    Files.writeString(smi, "#!/bin/sh\necho '0, NVIDIA H100 80GB HBM3, 81559, 1, 550.54.15, 9.0'\n");
    Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
    AgentConfig original = agent.config();
    agent.configure(c -> withNvidiaSmi(c, smi.toString()));
    try {
      Processes.Run run = agent.cli("preflight");

      // this dockerd has no nvidia runtime, so a GPU host with it fails the preflight
      assertThat(run.exit()).as(run.toString()).isEqualTo(1);
      assertThat(run.stdout()).containsPattern(row("GPU drivers present", "required", "PASS"))
          .contains("NVIDIA H100 80GB HBM3, driver 550.54.15")
          .containsPattern(row("container GPU access", "required", "FAIL"));
    } finally {
      agent.configure(c -> original);
    }
  }

  @Test
  void aTamperedBuildContextAbortsTheBuildAndTagsNothing() throws Exception {
    String tag = "svc-it-ops:tampered-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> before = Fixtures.images();

    Processes.Run run = agent.cli("build", "--server", proxy.url(), "--tag", tag, "--base-image", "svc-local/java:17");

    assertThat(run.exit()).as(run.toString()).isEqualTo(1);
    String announced = server.api().get("/api/v1/agent/build-context/sha256").json().getString("sha256");
    assertThat(proxy.tamperedSha256("/api/v1/agent/build-context")).isNotEqualTo(announced);
    assertThat(run.stderr()).contains("SHA-256 mismatch", announced, proxy.tamperedSha256("/api/v1/agent/build-context"));
    assertThat(run.stderr().strip().lines()).hasSize(1);
    assertThat(run.stdout()).doesNotContain("Building");
    assertThat(Fixtures.images()).isEqualTo(before).doesNotContainKey(tag);
  }

  @Test
  void aTamperedPackageAbortsTheUpdateAndLeavesTheInstalledAgentUntouched() throws Exception {
    Path install = agent.dir().resolve("installed-agent");
    Processes.Run first = agent.cli("update", "--install-dir", install.toString());
    assertThat(first.exit()).as(first.toString()).isZero();
    Path current = install.resolve("current");
    assertThat(current).isSymbolicLink();
    Path oldTarget = Files.readSymbolicLink(current);
    assertThat(oldTarget.toString()).startsWith("versions/svc-agent-" + SvcVersion.version() + "-");
    Processes.Run version = Processes.run(new ProcessBuilder(current.resolve("bin/svc-agent").toString(), "--version"),
        Duration.ofMinutes(1));
    assertThat(version.stdout().strip()).isEqualTo("svc-agent " + SvcVersion.version());
    Map<String, String> tree = tree(install);

    Processes.Run tampered = agent.cli("update", "--install-dir", install.toString(), "--server", proxy.url());

    assertThat(tampered.exit()).as(tampered.toString()).isEqualTo(1);
    String announced = server.api().get("/api/v1/agent/package/sha256").json().getString("sha256");
    assertThat(tampered.stderr()).contains("SHA-256 mismatch", announced, proxy.tamperedSha256("/api/v1/agent/package"));
    assertThat(Files.readSymbolicLink(current)).isEqualTo(oldTarget);
    // the same files with the same bytes, and nothing left over from the aborted attempt
    assertThat(tree(install)).isEqualTo(tree);
  }

  @Test
  void buildOnTheLocalJavaBaseImageMakesAnSvcImageThatRunsSvc() throws Exception {
    Processes.Run script = Processes.run(new ProcessBuilder(
        Processes.repositoryRoot().resolve("scripts/java-base-image").toString()), Duration.ofMinutes(5));
    assertThat(script.exit()).as(script.toString()).isZero();
    String kitt = "svc-it-ops:kitt-" + UUID.randomUUID().toString().substring(0, 8);
    String extra = "svc-it-ops:extra-" + UUID.randomUUID().toString().substring(0, 8);
    // the settings the daemon caches from its heartbeats name the custom tag
    Files.writeString(agent.home().resolve("agent-settings.json"), "{\"kitt_image\":\"" + kitt + "\"}");
    String previousLatest = Fixtures.images().get("svc:latest");
    try {
      Processes.Run run = agent.cli("build", "--base-image", "svc-local/java:17", "--tag", extra);

      assertThat(run.exit()).as(run.toString()).isZero();
      assertThat(run.stdout()).contains("Verified svc-build-context-", "Step 1/", "Built image ");
      Map<String, String> images = Fixtures.images();
      assertThat(images.get("svc:latest")).isNotNull().isEqualTo(images.get(kitt)).isEqualTo(images.get(extra));
      Processes.Run svc = Processes.run(new ProcessBuilder("docker", "run", "--rm", "--network", "none", "svc:latest",
          "--version"), Duration.ofMinutes(2));
      assertThat(svc.exit()).as(svc.toString()).isZero();
      assertThat(svc.stdout().strip()).isEqualTo("svc " + SvcVersion.version());
    } finally {
      Files.deleteIfExists(agent.home().resolve("agent-settings.json"));
      Fixtures.restoreTags(previousLatest, kitt, extra);
    }
  }

  /** A table row: the check, then the column values, separated by the table's padding. */
  private static Pattern row(String check, String needed, String verdict) {
    return Pattern.compile("(?m)^" + Pattern.quote(check) + "\\s+" + needed + "\\s+" + Pattern.quote(verdict) + "\\s");
  }

  private static AgentConfig withNvidiaSmi(AgentConfig c, String nvidiaSmi) {
    return new AgentConfig(c.server(), c.token(), c.name(), c.port(), c.bind(), c.modelStorageDir(), c.shareSource(),
        c.shareMount(), c.caFingerprint(), c.tls(), nvidiaSmi, c.mount());
  }

  private static Map<String, String> tree(Path root) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.collect(Collectors.toList())) {
        String key = root.relativize(p).toString();
        if (Files.isSymbolicLink(p)) {
          out.put(key, "-> " + Files.readSymbolicLink(p));
        } else if (Files.isDirectory(p)) {
          out.put(key, "dir");
        } else {
          out.put(key, sha256(Files.readAllBytes(p)) + " " + PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
        }
      }
    }
    return out;
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  /**
   * Plain HTTP on 127.0.0.1 in front of the real server: forwards every GET and flips one byte in
   * the middle of the two archives' bodies, keeping the server's headers (X-Content-SHA256 included).
   */
  static final class TamperingProxy {
    private static final Set<String> TAMPERED = Set.of("/api/v1/agent/build-context", "/api/v1/agent/package");

    private final HttpServer http;
    private final Map<String, AtomicReference<String>> sent = Map.of(
        "/api/v1/agent/build-context", new AtomicReference<>(), "/api/v1/agent/package", new AtomicReference<>());

    private TamperingProxy(HttpServer http) {
      this.http = http;
    }

    static TamperingProxy start(Vertx vertx, ServerProcess server) {
      WebClient upstream = WebClient.create(vertx, new WebClientOptions().setSsl(true)
          .setTrustOptions(new PemTrustOptions().addCertPath(server.caPem().toString())));
      HttpServer http = vertx.createHttpServer();
      TamperingProxy proxy = new TamperingProxy(http);
      http.requestHandler(request -> upstream.get(server.port(), "127.0.0.1", request.uri()).send().onComplete(ar -> {
        if (ar.failed()) {
          request.response().setStatusCode(502).end(String.valueOf(ar.cause()));
          return;
        }
        var response = ar.result();
        Buffer body = response.body() == null ? Buffer.buffer() : response.body();
        String path = request.path();
        if (TAMPERED.contains(path) && body.length() > 0) {
          int middle = body.length() / 2;
          body.setByte(middle, (byte) (body.getByte(middle) ^ 0x01));
          try {
            proxy.sent.get(path).set(sha256(body.getBytes()));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
        request.response().setStatusCode(response.statusCode());
        response.headers().forEach((name, value) -> {
          if (!name.equalsIgnoreCase("content-length") && !name.equalsIgnoreCase("transfer-encoding")) {
            request.response().headers().add(name, value);
          }
        });
        request.response().end(body);
      }));
      http.listen(0, "127.0.0.1").await();
      return proxy;
    }

    String url() {
      return "http://127.0.0.1:" + http.actualPort();
    }

    /** The SHA-256 of the tampered body last sent for {@code path}. */
    String tamperedSha256(String path) {
      return sent.get(path).get();
    }
  }
}
