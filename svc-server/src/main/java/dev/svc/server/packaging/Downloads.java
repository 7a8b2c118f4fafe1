package dev.svc.server.packaging;

import dev.svc.core.FileDigest;
import dev.svc.core.SvcVersion;
import io.vertx.core.Future;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The two downloads of protocol.md section 6, built from the installed distribution into a cache
 * directory (blocking: call from a worker): the agent package (the svc-agent jar, its libraries
 * and a launcher) and the benchmark image's build context (a Dockerfile and the svc jars).
 */
public final class Downloads {

  /** A built archive and its SHA-256. */
  public record Archive(Path file, String filename, String sha256) {
  }

  private final Path appHome;
  private final Path cacheDir;
  /** Each archive's build, by name, shared by every HTTP verticle of the server. */
  private final Map<String, Future<Optional<Archive>>> built = new HashMap<>();

  /**
   * @param appHome the svc installation (the repository root with built modules); null when unknown
   * @param cacheDir where archives are written
   */
  public Downloads(Path appHome, Path cacheDir) {
    this.appHome = appHome;
    this.cacheDir = cacheDir;
  }

  /**
   * The archive {@code name}, built once per server by {@code build} at its first request (a failed
   * build is tried again): every HTTP verticle must serve the same file with the same digest, and a
   * second build would differ (its timestamps) and replace the file under the first one's digest.
   */
  public synchronized Future<Optional<Archive>> once(String name, Supplier<Future<Optional<Archive>>> build) {
    Future<Optional<Archive>> archive = built.get(name);
    if (archive == null || archive.failed()) {
      archive = build.get();
      built.put(name, archive);
    }
    return archive;
  }

  public Optional<Archive> agentPackage() throws IOException {
    Path dist = appHome == null ? null : appHome.resolve("svc-agent/target");
    if (dist == null || !Files.isRegularFile(dist.resolve("svc-agent.jar"))) {
      return Optional.empty();
    }
    String root = "svc-agent-" + SvcVersion.version() + "/";
    return Optional.of(build("svc-agent-" + SvcVersion.version() + ".tar.gz", tar -> {
      tar.addFile(root + "svc-agent.jar", dist.resolve("svc-agent.jar"), 0644);
      for (Path lib : libs(dist.resolve("lib"))) {
        tar.addFile(root + "lib/" + lib.getFileName(), lib, 0644);
      }
      tar.addBytes(root + "bin/svc-agent", launcher().getBytes(StandardCharsets.UTF_8), 0755);
    }));
  }

  public Optional<Archive> buildContext() throws IOException {
    Path dist = appHome == null ? null : appHome.resolve("svc-server/target");
    if (dist == null || !Files.isRegularFile(dist.resolve("svc-server.jar"))) {
      return Optional.empty();
    }
    return Optional.of(build("svc-build-context-" + SvcVersion.version() + ".tar.gz", tar -> {
      tar.addBytes("Dockerfile", dockerfile().getBytes(StandardCharsets.UTF_8), 0644);
      tar.addFile("app/svc.jar", dist.resolve("svc-server.jar"), 0644);
      for (Path lib : libs(dist.resolve("lib"))) {
        tar.addFile("app/lib/" + lib.getFileName(), lib, 0644);
      }
    }));
  }

  private interface Content {
    void write(TarGzWriter tar) throws IOException;
  }

  private Archive build(String filename, Content content) throws IOException {
    Files.createDirectories(cacheDir);
    Path tmp = Files.createTempFile(cacheDir, filename, ".part");
    try {
      try (OutputStream out = Files.newOutputStream(tmp); TarGzWriter tar = new TarGzWriter(out)) {
        content.write(tar);
      }
      Path target = cacheDir.resolve(filename);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return new Archive(target, filename, FileDigest.sha256(target));
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static List<Path> libs(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
    }
  }

  private static String launcher() {
    return "#!/bin/sh\n# svc-agent launcher from the agent package\n"
        + "here=\"$(cd \"$(dirname \"$0\")/..\" && pwd)\"\n"
        + "exec java -jar \"$here/svc-agent.jar\" \"$@\"\n";
  }

  private static String dockerfile() {
    return "# The svc benchmark image: the svc command on a Java 17 runtime.\n"
        + "ARG BASE=eclipse-temurin:17-jre\n"
        + "FROM ${BASE}\n"
        + "COPY app/ /opt/svc/\n"
        + "ENTRYPOINT [\"java\", \"-jar\", \"/opt/svc/svc.jar\"]\n"
        + "CMD [\"--help\"]\n";
  }
}
