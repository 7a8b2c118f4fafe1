package dev.svc.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.svc.server.TestServer;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent package and build-context downloads: gzip'd tar archives whose SHA-256 the server states. */
class DownloadsTest {

  private static final byte[] AGENT_JAR = "fake agent jar".getBytes(StandardCharsets.UTF_8);
  private static final byte[] LIB_JAR = "fake library jar, a bit longer than the other one".getBytes(StandardCharsets.UTF_8);
  private static final byte[] SERVER_JAR = "fake server jar".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path temp;

  private Path appHome() throws IOException {
    Path app = temp.resolve("app");
    Files.createDirectories(app.resolve("svc-agent/target/lib"));
    Files.createDirectories(app.resolve("svc-server/target"));
    Files.write(app.resolve("svc-agent/target/svc-agent.jar"), AGENT_JAR);
    Files.write(app.resolve("svc-agent/target/lib/a.jar"), LIB_JAR);
    Files.write(app.resolve("svc-server/target/svc-server.jar"), SERVER_JAR);
    return app;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Entry name → content of a gzip'd ustar archive, read block by block. */
  private static Map<String, byte[]> untar(byte[] gzipped) throws IOException {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
      while (true) {
        byte[] header = in.readNBytes(512);
        assertThat(header).as("complete tar header").hasSize(512);
        if (isZero(header)) {
          break;
        }
        String name = text(header, 0, 100);
        String prefix = text(header, 345, 155);
        if (!prefix.isEmpty()) {
          name = prefix + "/" + name;
        }
        long size = Long.parseLong(text(header, 124, 12).trim(), 8);
        byte[] content = in.readNBytes((int) size);
        assertThat(content).as("content of %s", name).hasSize((int) size);
        long padding = (512 - size % 512) % 512;
        assertThat(in.readNBytes((int) padding)).hasSize((int) padding);
        entries.put(name, content);
      }
    }
    return entries;
  }

  private static boolean isZero(byte[] block) {
    for (byte b : block) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private static String text(byte[] header, int offset, int length) {
    int end = offset;
    while (end < offset + length && header[end] != 0) {
      end++;
    }
    return new String(header, offset, end - offset, StandardCharsets.US_ASCII);
  }

  @Test
  void agentPackageIsAGzippedTarWhoseDigestMatchesTheHeaderAndTheDigestEndpoint() throws IOException {
    try (TestServer server = TestServer.start(temp.resolve("home"), new TestServer.Options().appHome(appHome()))) {
      String version = server.get("/api/v1/version").bodyAsJsonObject().getString("version");

      HttpResponse<Buffer> download = server.get("/api/v1/agent/package");

      assertThat(download.statusCode()).isEqualTo(200);
      byte[] body = download.body().getBytes();
      String digest = sha256(body);
      assertThat(download.getHeader("X-Content-SHA256")).isEqualTo(digest);
      HttpResponse<Buffer> stated = server.get("/api/v1/agent/package/sha256");
      assertThat(stated.statusCode()).isEqualTo(200);
      assertThat(stated.bodyAsJsonObject().getString("sha256")).isEqualTo(digest);
      assertThat(stated.bodyAsJsonObject().getString("filename")).endsWith(".tar.gz").contains(version);

      Map<String, byte[]> entries = untar(body);
      String root = "svc-agent-" + version + "/";
      assertThat(entries).containsKeys(root + "svc-agent.jar", root + "lib/a.jar", root + "bin/svc-agent");
      assertThat(entries.get(root + "svc-agent.jar")).isEqualTo(AGENT_JAR);
      assertThat(entries.get(root + "lib/a.jar")).isEqualTo(LIB_JAR);
      assertThat(new String(entries.get(root + "bin/svc-agent"), StandardCharsets.UTF_8)).startsWith("#!");
    }
  }

  @Test
  void buildContextIsAGzippedTarWithTheDockerfileAndAMatchingDigest() throws IOException {
    try (TestServer server = TestServer.start(temp.resolve("home"), new TestServer.Options().appHome(appHome()))) {
      HttpResponse<Buffer> download = server.get("/api/v1/agent/build-context");

      assertThat(download.statusCode()).isEqualTo(200);
      byte[] body = download.body().getBytes();
      String digest = sha256(body);
      assertThat(download.getHeader("X-Content-SHA256")).isEqualTo(digest);
      HttpResponse<Buffer> stated = server.get("/api/v1/agent/build-context/sha256");
      assertThat(stated.statusCode()).isEqualTo(200);
      assertThat(stated.bodyAsJsonObject().getString("sha256")).isEqualTo(digest);

      Map<String, byte[]> entries = untar(body);
      assertThat(entries).containsKey("Dockerfile");
      assertThat(new String(entries.get("Dockerfile"), StandardCharsets.UTF_8)).contains("FROM");
      assertThat(entries.values()).anySatisfy(content -> assertThat(content).isEqualTo(SERVER_JAR));
    }
  }

  /**
   * Connections are spread over the HTTP verticles (one per core); each connection must get the same
   * archive and digest, so the archive is built once per server, not once per verticle.
   */
  @Test
  void everyConnectionGetsTheSameArchiveAndDigest() throws Exception {
    try (TestServer server = TestServer.start(temp.resolve("home"),
        new TestServer.Options().insecure().appHome(appHome()))) {
      // no keep-alive: each request opens a connection, and the server hands them to its verticles in turn
      WebClient fresh = WebClient.create(server.vertx(), new WebClientOptions().setDefaultHost("localhost")
          .setDefaultPort(server.port()).setKeepAlive(false));
      Set<String> stated = new HashSet<>();
      Set<String> served = new HashSet<>();
      for (int i = 0; i < 3; i++) {
        // a second build would be in another second, so it would differ (its launcher's timestamp)
        nextSecond();
        HttpResponse<Buffer> digest = fresh.get("/api/v1/agent/package/sha256").send().await();
        assertThat(digest.statusCode()).isEqualTo(200);
        stated.add(digest.bodyAsJsonObject().getString("sha256"));
        nextSecond();
        HttpResponse<Buffer> download = fresh.get("/api/v1/agent/package").send().await();
        assertThat(download.statusCode()).isEqualTo(200);
        served.add(download.getHeader("X-Content-SHA256"));
        served.add(sha256(download.body().getBytes()));
      }
      assertThat(stated).hasSize(1);
      assertThat(served).isEqualTo(stated);
      fresh.close();
    }
  }

  /** Returns once the wall clock's second has changed (the tar's timestamps have a second's resolution). */
  private static void nextSecond() throws InterruptedException {
    long second = System.currentTimeMillis() / 1000;
    while (System.currentTimeMillis() / 1000 == second) {
      Thread.sleep(20);
    }
  }

  @Test
  void withoutAnInstallationBothDownloadsAreNotFoundAsJson() {
    try (TestServer server = TestServer.start(temp.resolve("home"))) {
      for (String path : new String[] {"/api/v1/agent/package", "/api/v1/agent/package/sha256",
          "/api/v1/agent/build-context", "/api/v1/agent/build-context/sha256"}) {
        HttpResponse<Buffer> response = server.get(path);
        assertThat(response.statusCode()).as(path).isEqualTo(404);
        assertThat(response.getHeader("Content-Type")).as(path).startsWith("application/json");
        JsonObject body = response.bodyAsJsonObject();
        assertThat(body.getString("error")).as(path).isNotBlank();
      }
    }
  }

  /**
   * A client that hangs up in the middle of a download (an agent killed while it updates, a
   * dropped link) broke nothing on the server: a debug line, not an error with a stack trace.
   */
  @Test
  void aClientHangingUpMidDownloadIsADebugLineNotAServerFault() throws Exception {
    Path app = appHome();
    // incompressible and larger than the socket buffers, so that the server is still writing when the client leaves
    byte[] large = new byte[24 * 1024 * 1024];
    new java.util.Random(7).nextBytes(large);
    Files.write(app.resolve("svc-agent/target/lib/large.jar"), large);
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (TestServer server = TestServer.start(temp.resolve("home"), new TestServer.Options().insecure().appHome(app))) {
      // built before the capture: the first request builds the archive
      assertThat(server.get("/api/v1/agent/package/sha256").statusCode()).isEqualTo(200);
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      int hangUps = 3;
      for (int i = 0; i < hangUps; i++) {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
          socket.getOutputStream().write(("GET /api/v1/agent/package HTTP/1.1\r\nHost: localhost\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          assertThat(socket.getInputStream().readNBytes(64 * 1024)).hasSize(64 * 1024);
          socket.setSoLinger(true, 0); // a reset, as a killed process leaves it
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline && count(captured, "Client went away") + count(captured, "Server fault") < hangUps) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }
      // the server still serves, whole downloads included
      assertThat(server.get("/api/v1/agent/package").body().length()).isGreaterThan(large.length);
    } finally {
      System.setErr(original);
    }
    String log = captured.toString(StandardCharsets.UTF_8);
    assertThat(count(captured, "Client went away")).as(log).isEqualTo(3);
    assertThat(log).doesNotContain("Server fault").doesNotContain("ERROR").doesNotContain("\tat ");
  }

  private static long count(ByteArrayOutputStream captured, String text) {
    return captured.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains(text)).count();
  }
}
