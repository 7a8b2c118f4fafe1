package dev.svc.it;

import dev.svc.engines.lifecycle.LoopbackPort;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A real HAProxy ({@code /usr/sbin/haproxy}, Debian's {@code haproxy}) in front of servers on
 * 127.0.0.1, as the README's cluster runs it: TCP mode, so that TLS passes through and agents'
 * client certificates reach the nodes; round robin; each node checked with {@code GET
 * /api/v1/health} over TLS every 500 ms, out of rotation after two failed checks (a killed node
 * leaves it within about a second), a connection refused by a dead node sent to another. Its
 * runtime API (a unix socket in its folder) tells which servers are up. Servers are named
 * {@code n1}, {@code n2}… in the order given.
 */
final class HaProxy implements AutoCloseable {

  static final Path BINARY = Path.of("/usr/sbin/haproxy");

  private final Path dir;
  private final int port;
  private final Process process;

  private HaProxy(Path dir, int port, Process process) {
    this.dir = dir;
    this.port = port;
    this.process = process;
  }

  /** Starts it in front of {@code servers} and waits until it reports every one of them up. */
  static HaProxy start(List<ServerProcess> servers) {
    if (!Files.isExecutable(BINARY)) {
      throw new IllegalStateException("HAProxy is not installed (no " + BINARY + "): install Debian's haproxy package"
          + " (scripts/test does)");
    }
    try {
      Path dir = Files.createTempDirectory("svc-it-haproxy-");
      int port = LoopbackPort.free();
      Path config = Files.writeString(dir.resolve("haproxy.cfg"), config(dir, port, servers));
      Process process = new ProcessBuilder(BINARY.toString(), "-f", config.toString(), "-db")
          .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
      HaProxy haproxy = new HaProxy(dir, port, process);
      try {
        Processes.await("HAProxy to see every node up", Duration.ofSeconds(60), () -> {
          if (!process.isAlive()) {
            throw new AssertionError("HAProxy exited with " + process.exitValue() + ":\n" + haproxy.log());
          }
          return haproxy.up().size() == servers.size();
        });
      } catch (RuntimeException | AssertionError e) {
        haproxy.close();
        throw e;
      }
      return haproxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String config(Path dir, int port, List<ServerProcess> servers) {
    StringBuilder cfg = new StringBuilder();
    cfg.append("""
        global
          # two file descriptors a connection, within the 20000 a test's process may open
          maxconn 6000
          stats socket %s mode 600 level admin
          log stdout format raw local0 notice
        defaults
          mode tcp
          log global
          timeout connect 2s
          timeout client 1h
          timeout server 1h
          retries 3
          option redispatch
        frontend svc
          bind 127.0.0.1:%d
          default_backend nodes
        backend nodes
          balance roundrobin
          option httpchk GET /api/v1/health
          http-check expect status 200
          default-server inter 500 fastinter 250 downinter 500 fall 2 rise 2 check-ssl verify none
        """.formatted(dir.resolve("admin.sock"), port));
    for (int i = 0; i < servers.size(); i++) {
      cfg.append("  server n").append(i + 1).append(" 127.0.0.1:").append(servers.get(i).port()).append(" check\n");
    }
    return cfg.toString();
  }

  URI url() {
    return URI.create("https://127.0.0.1:" + port);
  }

  int port() {
    return port;
  }

  /** A client of the API through the balancer, with the global token, trusting {@code caPem}. */
  Http api(String token, Path caPem) {
    return new Http(url(), token, caPem);
  }

  /** The servers in rotation now ({@code n1}…), from the runtime API's {@code show stat}. */
  List<String> up() {
    return status().entrySet().stream().filter(e -> e.getValue().startsWith("UP")).map(Map.Entry::getKey).toList();
  }

  /** Each server's status as HAProxy reports it (UP, DOWN, "UP 1/2"…); empty when the runtime API does not answer. */
  Map<String, String> status() {
    Map<String, String> out = new LinkedHashMap<>();
    String stat;
    try {
      stat = command("show stat");
    } catch (IOException e) {
      return out;
    }
    String[] lines = stat.split("\n");
    if (lines.length == 0 || !lines[0].startsWith("# ")) {
      return out;
    }
    List<String> header = List.of(lines[0].substring(2).split(","));
    int proxy = header.indexOf("pxname");
    int name = header.indexOf("svname");
    int status = header.indexOf("status");
    for (int i = 1; i < lines.length; i++) {
      String[] fields = lines[i].split(",", -1);
      if (fields.length > status && "nodes".equals(fields[proxy]) && !fields[name].equals("BACKEND")) {
        out.put(fields[name], fields[status]);
      }
    }
    return out;
  }

  /** One command to the runtime API; its whole answer (the socket closes after it). */
  private String command(String command) throws IOException {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(dir.resolve("admin.sock")));
      channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      ByteBuffer buffer = ByteBuffer.allocate(8192);
      while (channel.read(buffer) >= 0) {
        answer.write(buffer.array(), 0, buffer.position());
        buffer.clear();
      }
      return answer.toString(StandardCharsets.US_ASCII);
    }
  }

  String log() {
    try {
      return Files.readString(dir.resolve("haproxy.log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Copies its log to {@code target}. */
  void keepLog(Path target) {
    try {
      Files.createDirectories(target.getParent());
      Files.copy(dir.resolve("haproxy.log"), target, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      System.err.println("HAProxy's log was not kept: " + e);
    }
  }

  @Override
  public void close() {
    Processes.stop(process, Duration.ofSeconds(10));
    Processes.deleteTree(dir);
  }
}
