package dev.svc.agent.cli;

import com.github.dockerjava.api.DockerClient;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.ops.ImageBuild;
import dev.svc.agent.ops.OpsOptions;
import dev.svc.agent.ops.VerifiedDownload;
import dev.svc.agent.uplink.ServerConnection;
import dev.svc.engines.lifecycle.DockerClients;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code svc-agent build}. */
@Command(name = "build", mixinStandardHelpOptions = true, description = {
    "Build the svc benchmark image from the server's build context: download it, verify its SHA-256 against "
        + "both digests the server announces, and build svc:latest (plus the kitt_image setting's tag and --tag) "
        + "through the local Docker engine. Nothing is built when the digests do not match."})
public final class BuildCommand implements Callable<Integer> {

  @Mixin
  HomeOptions homeOptions = new HomeOptions();

  @Option(names = "--server", paramLabel = "URL", description = "The server (default: the one in the configuration).")
  String server;

  @Option(names = "--tag", paramLabel = "TAG", description = "A further tag for the image (repeatable).")
  List<String> tags = new ArrayList<>();

  @Option(names = "--no-cache", description = "Build without Docker's layer cache.")
  boolean noCache;

  @Option(names = "--base-image", paramLabel = "IMAGE",
      description = "A local Java 17 base image to build on (the Dockerfile's BASE), for hosts that cannot pull, "
          + "e.g. svc-local/java:17 from scripts/java-base-image.")
  String baseImage;

  @Override
  public Integer call() {
    AgentHome agentHome = homeOptions.home();
    AgentConfig connection;
    try {
      connection = OpsOptions.connection(homeOptions.configFile(), server);
    } catch (RuntimeException e) {
      System.err.println("svc-agent build: " + e.getMessage());
      return server != null && !(server.startsWith("http://") || server.startsWith("https://")) ? 2 : 1;
    }
    OpsOptions.quietDockerTransport();
    Vertx vertx = Vertx.vertx();
    Path work = null;
    try (DockerClient docker = DockerClients.connect()) {
      Set<String> imageTags = ImageBuild.tags(agentHome.settingsCache(), tags);
      work = Files.createTempDirectory("svc-build-context-");
      ServerConnection serverConnection = ServerConnection.open(vertx, connection, false);
      System.out.println("Downloading the build context from " + serverConnection.current() + "...");
      VerifiedDownload.Verified context;
      try {
        context = VerifiedDownload.fetch(vertx, serverConnection, "/api/v1/agent/build-context", "build context",
            work.resolve("context.tar.gz"));
      } finally {
        serverConnection.close();
      }
      System.out.println("Verified " + context.filename() + " (" + context.size() + " bytes, SHA-256 " + context.sha256() + ")");
      DockerClients.requireReachable(docker);
      System.out.println("Building " + String.join(", ", imageTags)
          + (baseImage != null ? " on " + baseImage : "") + (noCache ? " without cache" : "") + "...");
      String id = ImageBuild.build(docker, context.file(), imageTags, baseImage, noCache,
          line -> System.out.println("  " + line));
      System.out.println("Built image " + id + " tagged " + String.join(", ", imageTags));
      return 0;
    } catch (VerifiedDownload.DownloadException e) {
      System.err.println("svc-agent build: " + e.getMessage());
      return 1;
    } catch (Exception e) {
      System.err.println("svc-agent build: " + oneLine(e));
      return 1;
    } finally {
      vertx.close().await();
      if (work != null) {
        deleteQuietly(work);
      }
    }
  }

  private static String oneLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return message.strip().replaceAll("\\s*\\R\\s*", "; ");
  }

  private static void deleteQuietly(Path dir) {
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temp directory left behind is harmless
    }
  }
}
