package dev.svc.it;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.svc.engines.lifecycle.DockerClients;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Docker engine of the test's own, so that it can be killed: {@code dockerd} on its own socket,
 * data and exec roots under a temporary directory, with the flags of {@code scripts/start-dockerd}
 * (vfs storage, no iptables, no bridge: containers use the host's network). The shared dockerd on
 * /var/run/docker.sock, which other tests use, is never touched but to copy images from it.
 */
final class PrivateDockerd implements AutoCloseable {

  private final Path dir;
  private Process process;

  private PrivateDockerd(Path dir) {
    this.dir = dir;
  }

  /** Starts one and waits until it answers. */
  static PrivateDockerd start() throws IOException {
    // short: the daemon's and containerd's unix sockets live under it (108 bytes at most)
    PrivateDockerd dockerd = new PrivateDockerd(Files.createTempDirectory(Path.of("/tmp"), "svc-dockerd-"));
    dockerd.launch();
    return dockerd;
  }

  /** Its address, for {@code DOCKER_HOST}. */
  String host() {
    return "unix://" + dir.resolve("docker.sock");
  }

  /** Starts the daemon again on the same roots (after {@link #kill9()}); waits until it answers. */
  void restart() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("dockerd is still running");
    }
    launch();
  }

  private void launch() throws IOException {
    process = new ProcessBuilder("dockerd", "-H", host(), "--data-root", dir.resolve("data").toString(),
        "--exec-root", dir.resolve("exec").toString(), "--pidfile", dir.resolve("dockerd.pid").toString(),
        "--storage-driver", "vfs", "--iptables=false", "--ip6tables=false", "--bridge=none")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("dockerd.log").toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
    Processes.await("the private dockerd to answer", Duration.ofSeconds(60), () -> {
      if (!process.isAlive()) {
        throw new AssertionError("dockerd exited with " + process.exitValue() + ":\n" + logTail());
      }
      try (DockerClient docker = client()) {
        docker.pingCmd().exec();
        return true;
      } catch (IOException | RuntimeException e) {
        return false;
      }
    });
  }

  /** SIGKILL to dockerd (its containerd goes with it; running containers stay, under their shims). */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("dockerd did not die of SIGKILL within 30 s");
    }
  }

  /** A client of this daemon; close it. */
  DockerClient client() {
    DefaultDockerClientConfig config = DefaultDockerClientConfig.createDefaultConfigBuilder().withDockerHost(host()).build();
    ApacheDockerHttpClient http = new ApacheDockerHttpClient.Builder().dockerHost(config.getDockerHost())
        .sslConfig(config.getSSLConfig()).connectionTimeout(Duration.ofSeconds(5)).responseTimeout(Duration.ofSeconds(60))
        .build();
    return DockerClientImpl.getInstance(config, http);
  }

  /** Copies an image from the shared dockerd. */
  void load(String image) throws IOException {
    try (DockerClient shared = DockerClients.connect(); DockerClient own = client();
        InputStream tar = shared.saveImageCmd(image).exec()) {
      own.loadImageCmd(tar).exec();
    }
  }

  /** Every container, whatever its state. */
  List<Container> containers() throws IOException {
    try (DockerClient docker = client()) {
      return docker.listContainersCmd().withShowAll(true).exec();
    }
  }

  /** The ids of live processes whose command line contains {@code marker} (read from /proc, containers' included). */
  static List<Long> processesWith(String marker) {
    List<Long> pids = new ArrayList<>();
    try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
      for (Path entry : entries.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        try {
          String commandLine = new String(Files.readAllBytes(entry.resolve("cmdline")), StandardCharsets.UTF_8);
          if (commandLine.contains(marker)) {
            pids.add(Long.parseLong(entry.getFileName().toString()));
          }
        } catch (IOException e) {
          // exited meanwhile
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pids;
  }

  String logTail() {
    try {
      List<String> lines = Files.readAllLines(dir.resolve("dockerd.log"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log)";
    }
  }

  /**
   * Removes its containers, stops it (SIGTERM, then SIGKILL), ends the container shims it left,
   * unmounts what it mounted under its directory and deletes the directory.
   */
  @Override
  public void close() throws Exception {
    if (process != null && process.isAlive()) {
      try (DockerClient docker = client()) {
        for (Container c : docker.listContainersCmd().withShowAll(true).exec()) {
          docker.removeContainerCmd(c.getId()).withForce(true).exec();
        }
      } catch (RuntimeException e) {
        // stopping it below ends them anyway
      }
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
    // shims of this daemon name its exec root in their command line
    for (long pid : processesWith(dir.resolve("exec").toString())) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    List<String> mounts = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
      String[] fields = line.split(" ");
      if (fields.length > 1 && fields[1].startsWith(dir.toString() + "/")) {
        mounts.add(fields[1]);
      }
    }
    mounts.sort(Comparator.reverseOrder());
    for (String mount : mounts) {
      Processes.run(new ProcessBuilder("umount", "-l", mount), Duration.ofSeconds(30));
    }
    Processes.deleteTree(dir);
  }
}
