package dev.svc.agent.ops;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Image;
import com.github.dockerjava.api.model.Info;
import com.github.dockerjava.api.model.Version;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.uplink.ServerConnection;
import dev.svc.agent.uplink.Servers;
import dev.svc.bench.hardware.GpuInfo;
import dev.svc.bench.hardware.NvidiaSmi;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.ServerSocket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The host checks of the mission's preflight table, with "Java >= 17" in place of the Python check.
 * A required check that fails fails the preflight; advisory ones only warn.
 *
 * <p>GPU rows on a CPU-only host: a GPU is expected when {@code nvidia-smi} (the configured one)
 * lists one or when the PCI bus shows an NVIDIA display controller. Where neither holds, "GPU drivers
 * present" and "container GPU access" are N/A ("no GPU on this host"): engines then run on the CPU,
 * and a CPU-only host passes. Where a GPU is expected, both are required.
 *
 * <p>Blocking (processes, docker-java, sockets): call from the CLI thread or a worker.
 */
public final class Preflight {

  public static final long DISK_ADVISED_BYTES = 50L * 1000 * 1000 * 1000;

  public enum Verdict { PASS, FAIL, WARN, N_A;

    public String label() {
      return this == N_A ? "N/A" : name();
    }
  }

  /** One row of the table. */
  public record Row(String check, boolean required, Verdict verdict, String detail) {
    public boolean failsPreflight() {
      return required && verdict == Verdict.FAIL;
    }
  }

  private final AgentConfig config;
  private final Vertx vertx;
  private final Supplier<DockerClient> docker;
  private final Set<String> imageTags;
  private final Path pciDevices;

  /**
   * @param docker a client for the local dockerd (contacted only here)
   * @param imageTags the benchmark image's tags, any of which counts as present
   */
  public Preflight(AgentConfig config, Vertx vertx, Supplier<DockerClient> docker, Set<String> imageTags) {
    this(config, vertx, docker, imageTags, Path.of("/sys/bus/pci/devices"));
  }

  Preflight(AgentConfig config, Vertx vertx, Supplier<DockerClient> docker, Set<String> imageTags, Path pciDevices) {
    this.config = config;
    this.vertx = vertx;
    this.docker = docker;
    this.imageTags = imageTags;
    this.pciDevices = pciDevices;
  }

  /** Runs every check, in the table's order. */
  public List<Row> run() {
    List<Row> rows = new ArrayList<>();
    rows.add(java());

    DockerState state = dockerState();
    rows.add(state.error == null
        ? new Row("container runtime available", true, Verdict.PASS, state.version)
        : new Row("container runtime available", true, Verdict.FAIL, state.error));

    NvidiaSmi.Listing gpus = new NvidiaSmi(config.nvidiaSmi()).gpus();
    boolean gpuHardware = !gpus.gpus().isEmpty() || nvidiaOnPciBus();
    rows.add(gpuAccess(gpuHardware, state));
    rows.add(image(state));
    rows.add(drivers(gpuHardware, gpus));
    rows.add(nfs());
    rows.add(disk());
    rows.addAll(servers());
    rows.add(port());
    return rows;
  }

  public static boolean passed(List<Row> rows) {
    return rows.stream().noneMatch(Row::failsPreflight);
  }

  /** The table, columns aligned: check, required/advisory, verdict, detail. */
  public static String table(List<Row> rows) {
    int checkWidth = "CHECK".length();
    for (Row row : rows) {
      checkWidth = Math.max(checkWidth, row.check().length());
    }
    String format = "%-" + checkWidth + "s  %-8s  %-7s  %s%n";
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, format, "CHECK", "NEEDED", "VERDICT", "DETAIL"));
    for (Row row : rows) {
      out.append(String.format(Locale.ROOT, format, row.check(), row.required() ? "required" : "advisory",
          row.verdict().label(), row.detail()));
    }
    return out.toString();
  }

  private static Row java() {
    Runtime.Version version = Runtime.version();
    String detail = "Java " + version + " (" + System.getProperty("java.home") + ")";
    return new Row("Java >= 17", true, version.feature() >= 17 ? Verdict.PASS : Verdict.FAIL, detail);
  }

  private record DockerState(DockerClient client, String version, String error, Map<String, ?> runtimes) {
  }

  private DockerState dockerState() {
    DockerClient client;
    try {
      client = docker.get();
      client.pingCmd().exec();
      Version version = client.versionCmd().exec();
      Info info = client.infoCmd().exec();
      return new DockerState(client, "Docker " + version.getVersion() + " (API " + version.getApiVersion() + ")", null,
          info.getRuntimes() == null ? Map.of() : info.getRuntimes());
    } catch (RuntimeException e) {
      return new DockerState(null, null, "Docker does not answer: " + VerifiedDownload.message(e)
          + " (is dockerd running? DOCKER_HOST=" + System.getenv().getOrDefault("DOCKER_HOST", "unset") + ")", Map.of());
    }
  }

  private Row gpuAccess(boolean gpuHardware, DockerState state) {
    String check = "container GPU access";
    if (!gpuHardware) {
      return new Row(check, true, Verdict.N_A, "no GPU on this host");
    }
    if (state.error != null) {
      return new Row(check, true, Verdict.FAIL, "Docker does not answer");
    }
    if (state.runtimes.containsKey("nvidia")) {
      return new Row(check, true, Verdict.PASS, "nvidia runtime registered with Docker");
    }
    return new Row(check, true, Verdict.FAIL,
        "no nvidia runtime in docker info (runtimes: " + String.join(", ", state.runtimes.keySet())
            + "); install the NVIDIA Container Toolkit");
  }

  private Row image(DockerState state) {
    String check = "service container image present";
    if (state.error != null) {
      return new Row(check, false, Verdict.WARN, "Docker does not answer");
    }
    try {
      for (Image image : state.client.listImagesCmd().exec()) {
        if (image.getRepoTags() != null) {
          for (String tag : image.getRepoTags()) {
            if (imageTags.contains(tag)) {
              return new Row(check, false, Verdict.PASS, tag);
            }
          }
        }
      }
      return new Row(check, false, Verdict.WARN,
          String.join(" or ", imageTags) + " missing: run svc-agent build (else benchmarks run through the local svc run)");
    } catch (RuntimeException e) {
      return new Row(check, false, Verdict.WARN, "could not list images: " + VerifiedDownload.message(e));
    }
  }

  private Row drivers(boolean gpuHardware, NvidiaSmi.Listing gpus) {
    String check = "GPU drivers present";
    if (!gpus.gpus().isEmpty()) {
      GpuInfo first = gpus.gpus().get(0);
      return new Row(check, true, Verdict.PASS,
          gpus.gpus().size() + " x " + first.name() + ", driver " + first.driverVersion());
    }
    if (gpuHardware) {
      return new Row(check, true, Verdict.FAIL, "an NVIDIA GPU is on the PCI bus but " + gpus.problem());
    }
    return new Row(check, true, Verdict.N_A, "no GPU on this host: " + gpus.problem() + "; engines run on the CPU");
  }

  /** An NVIDIA (vendor 0x10de) display or 3D controller (class 0x03xxxx) in sysfs. */
  private boolean nvidiaOnPciBus() {
    if (!Files.isDirectory(pciDevices)) {
      return false;
    }
    try (DirectoryStream<Path> devices = Files.newDirectoryStream(pciDevices)) {
      for (Path device : devices) {
        try {
          String vendor = Files.readString(device.resolve("vendor")).strip();
          String deviceClass = Files.readString(device.resolve("class")).strip();
          if (vendor.equalsIgnoreCase("0x10de") && deviceClass.startsWith("0x03")) {
            return true;
          }
        } catch (IOException e) {
          // a device without readable ids is not a GPU we can use
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  private static Row nfs() {
    String check = "NFS utilities (mount.nfs)";
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
    // mount.nfs lives in /sbin, which a user's PATH often lacks; mount(8) finds it there all the same
    dirs.addAll(List.of("/sbin", "/usr/sbin"));
    for (String dir : dirs) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "mount.nfs"))) {
        return new Row(check, false, Verdict.PASS, Path.of(dir, "mount.nfs").toString());
      }
    }
    return new Row(check, false, Verdict.WARN, "mount.nfs not found (install nfs-common to use a model share)");
  }

  private Row disk() {
    Path dir = config.modelStoragePath().toAbsolutePath();
    String check = "disk space >= 50 GB (model dir)";
    Path existing = dir;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return new Row(check, false, Verdict.WARN, "no existing directory above " + dir);
    }
    try {
      long free = Files.getFileStore(existing).getUsableSpace();
      String detail = String.format(Locale.ROOT, "%.1f GB free at %s", free / 1e9, dir);
      return new Row(check, false, free >= DISK_ADVISED_BYTES ? Verdict.PASS : Verdict.WARN,
          free >= DISK_ADVISED_BYTES ? detail : detail + " (50 GB advised)");
    } catch (IOException e) {
      return new Row(check, false, Verdict.WARN, "could not read free space at " + existing + ": " + e.getMessage());
    }
  }

  /**
   * One row per server node. A node of a cluster that does not answer only warns while another
   * answers: the agent goes on through the others.
   */
  private List<Row> servers() {
    List<Row> rows = new ArrayList<>();
    for (URI node : config.serverUris()) {
      rows.add(server(node));
    }
    boolean oneAnswers = rows.stream().anyMatch(r -> r.verdict() != Verdict.FAIL);
    if (rows.size() > 1 && oneAnswers) {
      rows.replaceAll(r -> r.verdict() == Verdict.FAIL ? new Row(r.check(), r.required(), Verdict.WARN, r.detail()) : r);
    }
    return rows;
  }

  /** GET /api/v1/health, verifying TLS against the configured CA first; a self-signed server passes with a warning. */
  private Row server(URI node) {
    String check = "server reachable";
    String url = node + "/api/v1/health";
    String verified = health(node, false);
    if (verified == null) {
      return new Row(check, true, Verdict.PASS, url + (config.https() ? " (TLS verified)" : ""));
    }
    if (!config.https()) {
      return new Row(check, true, Verdict.FAIL, url + ": " + verified);
    }
    String insecure = health(node, true);
    if (insecure == null) {
      return new Row(check, true, Verdict.WARN, url + " answers, but its certificate did not verify (" + verified
          + "); self-signed? pin the server's CA with svc-agent init");
    }
    return new Row(check, true, Verdict.FAIL, url + ": " + insecure);
  }

  /** Null when the health check answers 200, else why not. */
  private String health(URI node, boolean insecure) {
    ServerConnection connection = ServerConnection.open(vertx, config, new Servers(List.of(node)), insecure);
    try {
      var response = connection.request(HttpMethod.GET, "/api/v1/health").timeout(10_000).send().await();
      return response.statusCode() == 200 ? null : "HTTP " + response.statusCode();
    } catch (Exception e) {
      // await() rethrows the failure as it is, checked exceptions (SSL, connect) included
      return VerifiedDownload.message(e);
    } finally {
      connection.close();
    }
  }

  private Row port() {
    String check = "agent port available";
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(config.port()));
      return new Row(check, false, Verdict.PASS, "port " + config.port() + " is free");
    } catch (IOException e) {
      return new Row(check, false, Verdict.WARN, "port " + config.port() + " is in use (is the agent running already?)");
    }
  }
}
